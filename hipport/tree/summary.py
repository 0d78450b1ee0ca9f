"""What a tree conversion did, as the report's summary numbers and the closing line."""

from __future__ import annotations

from hipport.buildfiles import build_file_kind


def summary_extra(run) -> dict:
    return {
        "cached": run.cached,
        "copied": run.copied,
        "skipped": run.skipped,
        "left_out": run.left_out,
        "build_files": run.build_files,
        "binary": run.binary,
        "renamed": len(run.renamed),
    }


def annotate_report(report: dict, run) -> dict:
    """Each renamed file's entry says what it is called now."""
    for entry in report.get("files", []):
        new = run.renamed.get(entry["path"])
        if new is not None:
            entry["renamed_to"] = new
    return report


def summary_line(run, summary: dict, elapsed: float) -> str:
    sources = [r for r in run.results if not build_file_kind(r.path)]
    ported = sum(1 for r in sources if r.changed)
    builds = [r for r in run.results if build_file_kind(r.path)]
    sev = summary["findings_by_severity"]
    parts = [
        f"{len(sources)} source file(s): {ported} ported, {len(sources) - ported} unchanged, {run.cached} from cache"
    ]
    if builds:
        parts.append(f"{len(builds)} build file(s), {sum(1 for r in builds if r.changed)} migrated")
    copied = f"{run.copied} copied"
    if run.skipped:
        copied += f", {run.skipped} left out ({left_out_names(run.left_out)})"
    if run.renamed:
        copied += f", {len(run.renamed)} renamed"
    parts.append(copied)
    parts.append(f"{summary['edits']} edit(s)")
    parts.append(f"{sev.get('error', 0)} error(s), {sev.get('warning', 0)} warning(s), {sev.get('info', 0)} info")
    return "hipport: " + "; ".join(parts) + f"; {elapsed:.2f}s"


NAMED_LEFT_OUT = 3


def left_out_names(paths: list[str]) -> str:
    """What .gitignore or --exclude left out, by name: the first few and how many more."""
    shown = ", ".join(paths[:NAMED_LEFT_OUT])
    more = len(paths) - NAMED_LEFT_OUT
    return shown + (f" and {more} more" if more > 0 else "") if paths else "by .gitignore or --exclude"
