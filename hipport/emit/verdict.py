"""A file's verdict: what its findings predict the compiler will say.

The report is honest when a file with no error or warning finding compiles, or
fails only because a library it needs (HP436) is not installed. So the verdict
is, from the findings alone:
- "fails": an error finding says why it will not compile (the codes are listed);
- "review": a warning finding names something that may not compile or behave;
- "needs-library": nothing to fix, but libraries beyond the HIP runtime (listed);
- "ports": nothing stands in the way.
Findings are JSON dicts (Finding.to_json()), so that a report read back from
disk gives the same verdicts as a fresh run.
"""

from __future__ import annotations

from collections.abc import Iterable

NEEDS_LIBRARY_CODE = "HP436"
VERDICTS = ("ports", "needs-library", "review", "fails")


def verdict(findings: Iterable[dict]) -> dict:
    """{"verdict": one of VERDICTS, "because": error (or warning) codes, "needs": library names}."""
    errors: list[str] = []
    warnings: list[str] = []
    needs: list[str] = []
    for finding in findings:
        severity, code = finding.get("severity"), finding.get("code", "")
        if severity == "error" and code not in errors:
            errors.append(code)
        elif severity == "warning" and code not in warnings:
            warnings.append(code)
        if code == NEEDS_LIBRARY_CODE and finding.get("library") and finding["library"] not in needs:
            needs.append(finding["library"])
    if errors:
        kind, because = "fails", errors
    elif warnings:
        kind, because = "review", warnings
    else:
        kind, because = ("needs-library" if needs else "ports"), []
    return {"verdict": kind, "because": sorted(because), "needs": sorted(needs)}
