"""The `hipport` command: start fast, exit fast. The commands themselves are hipport.cli.

A pre-commit hook starts hipport on every commit, so start-up and shut-down are
what its users wait for. Two things here are for them:

- A plain `hipport check [-q] [--all-findings] [--fail-on L] [--hip-version X.Y] [--select C]
  [--ignore C] [--rules F] [--baseline F] [--config F] FILES` runs without click,
  whose import and the building of every command's options cost about a fifth of
  such a run. Anything else, or any problem at all before the check itself
  (a bad value, a missing file, a config error, --help), goes to hipport.cli,
  which does everything from the start and says what is wrong in its own words.
- The exit runs the atexit handlers, flushes stdout and stderr and leaves with
  os._exit, skipping the interpreter's teardown (freeing the rule set's objects
  one by one). It falls back to the ordinary exit whenever that could lose
  something: a flush that fails (a closed pipe: Python reports it its own way),
  or a thread still running.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading

from hipport.console import INTERRUPTED, print_names_as_bytes


def main() -> None:
    try:
        status = _plain_check(sys.argv[1:])
    except KeyboardInterrupt:
        _echo([INTERRUPTED], sys.stderr)
        status = 130
    if status is not None:
        leave(status)
    from hipport.cli import main as cli

    try:
        cli.main()
    except SystemExit as exc:
        leave(exc.code)
    leave(0)


def leave(code) -> None:
    """Exit with code as SystemExit would, without the interpreter's teardown when that is safe."""
    status = _status(code)
    if status is None or threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        sys.exit(code)  # the ordinary exit reports it as Python always has
    os._exit(status)


def _status(code) -> int | None:
    """The exit status SystemExit(code) gives, or None for a message that still has to be printed."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    return None


# -- `hipport check` without click -------------------------------------------------------

_VALUED = {
    "--fail-on": "fail_on",
    "--hip-version": "hip_version",
    "--select": "select",
    "--ignore": "ignore",
    "--rules": "rules",
    "--baseline": "baseline",
    "--config": "config",
    "--format": "format",
    "--mode": "mode",
    "--platform": "platform",
}
_REPEATABLE = {"select", "ignore", "rules"}
_FAIL_ON = ("error", "warning", "info", "never")


def plain_check_arguments(argv: list[str]) -> dict | None:
    """check's arguments as hipport.cli's check command would take them, or None for anything
    this does not handle exactly as it does (which then goes to click)."""
    if not argv or argv[0] != "check":
        return None
    given: dict = {"paths": [], "quiet": False, "all_findings": False, "select": [], "ignore": [], "rules": []}
    args = iter(argv[1:])
    for arg in args:
        if arg in ("-q", "--quiet"):
            given["quiet"] = True
            continue
        if arg == "--all-findings":
            given["all_findings"] = True
            continue
        if not arg.startswith("-"):
            given["paths"].append(arg)
            continue
        name, equals, value = arg.partition("=")
        key = _VALUED.get(name)
        if key is None:
            return None  # --help, --write-baseline, --shim-header, --torch-version, --, -qq, a path named -x: click's
        if not equals:
            following = next(args, None)
            if following is None:
                return None
            value = following
        if key in _REPEATABLE:
            given[key].append(value)
        elif key in given:
            return None  # given twice: the last one wins in click; not worth copying
        else:
            given[key] = value
    ok = (
        given["paths"]
        and given.get("format", "text") == "text"
        and given.get("mode", "port") == "port"
        and given.get("fail_on", "error") in _FAIL_ON
        and given.get("platform", "both") in ("both", "amd", "nvidia")
    )
    paths = [*given["paths"], *([given["baseline"]] if "baseline" in given else [])]
    config = given.get("config")
    if config is not None and not os.path.isfile(config):
        return None  # click's --config: must exist, not a directory
    return given if ok and all(map(_readable_or_missing, paths + ([config] if config else []))) else None


def _readable_or_missing(path: str) -> bool:
    """What click.Path checks of a path it does not require to exist: readable, if it is there."""
    try:
        os.stat(path)
    except (OSError, ValueError):
        return True
    return os.access(path, os.R_OK)


def _plain_check(argv: list[str]) -> int | None:
    """Run a plain check and return its exit status; None if it is not one (or not plainly fine)."""
    given = plain_check_arguments(argv)
    if given is None:
        return None
    from pathlib import Path

    from hipport.baseline import BaselineError, load_baseline
    from hipport.config import ConfigError, find_config, load_config, merge
    from hipport.options import Options
    from hipport.ruleset.loader import load_rules
    from hipport.ruleset.schema import RuleFileError
    from hipport.versions import target_version

    try:
        config = given.get("config")
        settings = merge(
            load_config(Path(config) if config is not None else find_config()),
            hip_version=given.get("hip_version"),
            rules=tuple(Path(r) for r in given["rules"]),
            select=_split(given["select"]),
            ignore=_split(given["ignore"]),
            fail_on=given.get("fail_on"),
            baseline=Path(given["baseline"]) if "baseline" in given else None,
            platform=given.get("platform"),
        )
        version = target_version(settings.hip_version)
        options = Options(
            hip_version=version, launch_syntax=settings.launch_syntax, roc=settings.roc, platform=settings.platform
        )
        rules = load_rules([Path(p) for p in settings.rules])
        known = load_baseline(settings.baseline) if settings.baseline is not None else None
    except (ConfigError, ValueError, RuleFileError, OSError, BaselineError):
        return None  # hipport.cli says what is wrong, as it always has
    return _run_plain_check(given, settings, options, rules, known)


def _split(values: list[str]) -> tuple[str, ...]:
    from hipport.check import split_codes

    return split_codes(tuple(values))


def _run_plain_check(given: dict, settings, options, rules, known) -> int:
    from pathlib import Path

    from hipport.check import run_check, text_lines
    from hipport.policy import Policy

    print_names_as_bytes()
    run = run_check(
        [Path(p) for p in given["paths"]],
        rules,
        options,
        Policy(settings.select, settings.ignore, settings.severity),
        known,
    )
    lines, summary = text_lines(run, given["quiet"], settings.fail_on, given["all_findings"])
    _echo([f"hipport: {message}" for message in run.errors], sys.stderr)
    _echo(lines, sys.stdout)
    _echo([summary] if summary is not None else [], sys.stderr)
    if run.errors:
        return 2
    return 1 if run.fails(settings.fail_on) else 0


def _echo(lines: list[str], stream) -> None:
    """What click.echo prints for these lines. It drops escape sequences when the stream is no
    terminal, and copes with streams that cannot encode everything: those cases go through it."""
    utf8 = (getattr(stream, "encoding", "") or "").lower().replace("-", "") == "utf8"
    if not utf8 or any("\x1b" in line for line in lines):
        import click

        for line in lines:
            click.echo(line, err=stream is sys.stderr)
        return
    for line in lines:
        stream.write(line + "\n")
    stream.flush()
