"""A baseline file: findings a team already knows about, so a hook only flags new ones.

Entries match on (path, code, fingerprint). Fingerprints leave out line numbers
(see diagnostics.assign_positions_and_fingerprints), so adding lines above a
known finding does not make it new. Matching counts occurrences: if a file had
two identical findings and now has three, one is reported.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from hipport import __version__

BASELINE_SCHEMA = 1


class BaselineError(Exception):
    pass


def write_baseline(path: Path, results) -> int:
    entries = sorted(
        (
            {"path": r.path, "code": f.code, "fingerprint": f.fingerprint, "name": f.name, "line": f.line}
            for r in results
            for f in r.findings
        ),
        key=lambda e: (e["path"], e["line"], e["code"], e["fingerprint"]),
    )
    document = {"schema": BASELINE_SCHEMA, "tool": {"name": "hipport", "version": __version__}, "findings": entries}
    from hipport.emit.writer import write_atomic  # here: the hook that only reads a baseline skips tempfile

    write_atomic(path, (json.dumps(document, indent=2) + "\n").encode("utf-8"))
    return len(entries)


def load_baseline(path: Path) -> Counter:
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        entries = document["findings"]
        if document.get("schema") != BASELINE_SCHEMA:
            raise BaselineError(f"{path}: baseline schema {document.get('schema')!r} is not {BASELINE_SCHEMA}")
        return Counter((e["path"], e["code"], e["fingerprint"]) for e in entries)
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc.strerror}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise BaselineError(f"{path}: not a hipport baseline file ({exc})") from None


def drop_known(results, known: Counter) -> int:
    """Remove findings recorded in the baseline from results; returns how many went."""
    remaining = Counter(known)
    dropped = 0
    for result in results:
        kept = []
        for finding in result.findings:
            key = (result.path, finding.code, finding.fingerprint)
            if remaining[key] > 0:
                remaining[key] -= 1
                dropped += 1
            else:
                kept.append(finding)
        result.findings = kept
    return dropped
