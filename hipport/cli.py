"""hipport's command line: argument handling only; the work is in hipport.api."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from hipport import __version__


def _fail(message: str) -> None:
    click.echo(f"hipport: {message}", err=True)
    sys.exit(2)


def _load_rules(user_rules: tuple[str, ...]):
    from hipport.rules.loader import load_rules
    from hipport.rules.schema import RuleFileError

    try:
        return load_rules([Path(p) for p in user_rules])
    except RuleFileError as exc:
        _fail(str(exc))
    except FileNotFoundError as exc:
        _fail(str(exc))


def _options(hip_version: str | None, launch_syntax: str, roc: bool):
    from hipport.options import Options
    from hipport.versions import parse_version

    try:
        version = parse_version(hip_version) if hip_version else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--hip-version") from None
    return Options(hip_version=version, launch_syntax=launch_syntax, roc=roc)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hipport")
def main() -> None:
    """Port CUDA C++ sources to HIP, and report what could not be ported.

    \b
    hipport convert kernel.cu -o kernel.hip   port one file
    hipport convert src/ -o src-hip/          mirror a tree, porting every source
    """


@main.command()
@click.argument("src", type=click.Path(path_type=Path))
@click.option("-o", "--output", "out", metavar="OUT",
              help="Output file or directory; '-' writes a single file's port to stdout.")
@click.option("--in-place", is_flag=True, help="Rewrite SRC itself, atomically.")
@click.option("--report", "report_path", type=click.Path(path_type=Path), metavar="FILE",
              help="Write the JSON migration report to FILE ('-' for stdout).")
@click.option("--hip-version", metavar="X.Y",
              help="Target HIP version; names newer than it are reported. Default: newest known.")
@click.option("--launch-syntax", type=click.Choice(["keep", "hip"]), default="keep", show_default=True,
              help="Keep k<<<...>>>(...) launches, or emit hipLaunchKernelGGL(...).")
@click.option("--roc", is_flag=True, help="Use rocBLAS/rocFFT/rocSPARSE/rocRAND/rocSOLVER names where they exist.")
@click.option("--rules", "user_rules", multiple=True, metavar="FILE",
              help="Extra rule file (repeatable); its rules win over the built-in ones.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
def convert(src: Path, out: str | None, in_place: bool, report_path: Path | None, hip_version: str | None,
            launch_syntax: str, roc: bool, user_rules: tuple[str, ...], quiet: bool) -> None:
    """Port SRC (a file or a directory) to HIP.

    Every byte outside an edit is kept as it was: encoding, line endings, comments
    and strings. Exit status is 0 when the output was written, even with findings,
    and 2 on usage or I/O errors.
    """
    from hipport import api
    from hipport.emit.report import dumps
    from hipport.emit.writer import write_atomic

    if out is None and not in_place:
        raise click.UsageError("give -o OUT (or '-o -' for stdout), or --in-place")
    if out is not None and in_place:
        raise click.UsageError("-o and --in-place exclude each other")
    if not src.exists():
        _fail(f"{src}: no such file or directory")
    options = _options(hip_version, launch_syntax, roc)
    rules = _load_rules(user_rules)
    started = time.perf_counter()
    try:
        if src.is_dir():
            if out == "-":
                raise click.UsageError("a directory cannot be written to stdout")
            if in_place:
                run = api.convert_tree_in_place(src, rules, options)
            else:
                run = api.convert_tree(src, Path(out), rules, options)
            results, errors = run.results, run.errors
        else:
            result = api.port_file(src, rules, options, display=str(src))
            if in_place:
                if result.changed:
                    write_atomic(src, result.output, mode_from=src)
            elif out == "-":
                sys.stdout.buffer.write(result.output)
                sys.stdout.flush()
            else:
                target = Path(out)
                if target.is_dir():
                    target = target / src.name
                if target.resolve() == src.resolve():
                    raise api.PortError(f"{target}: output is the input file; use --in-place")
                target.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(target, result.output, mode_from=src)
            results, errors = [result], []
    except api.PortError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{exc.filename or src}: {exc.strerror or exc}")

    elapsed = time.perf_counter() - started
    report = api.report_for(results, rules, options, {"seconds": round(elapsed, 3)})
    if report_path is not None:
        text = dumps(report)
        if str(report_path) == "-":
            click.echo(text, nl=False)
        else:
            try:
                write_atomic(report_path, text.encode("utf-8"))
            except OSError as exc:
                _fail(f"{report_path}: cannot write report: {exc.strerror}")
    for message in errors:
        click.echo(f"hipport: {message}", err=True)
    if not quiet:
        _print_findings(results)
        _print_summary(report["summary"], elapsed)
    if errors:
        sys.exit(2)


def _settings(config_path: Path | None, **flags):
    """Merge [tool.hipport] from pyproject.toml with the flags given (flags win)."""
    from hipport.config import ConfigError, find_config, load_config, merge

    try:
        config = load_config(config_path if config_path is not None else find_config())
    except ConfigError as exc:
        _fail(str(exc))
    return merge(config, **flags)


def _codes(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(c.strip() for v in values for c in v.split(",") if c.strip())


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True)
@click.option("--fail-on", type=click.Choice(["error", "warning", "info", "never"]),
              help="Lowest severity that makes the exit status 1. Default: error (or fail-on in the config).")
@click.option("--hip-version", metavar="X.Y", help="Target HIP version. Default: newest known.")
@click.option("--select", multiple=True, metavar="CODES", help="Report only these codes or prefixes (comma-separated).")
@click.option("--ignore", multiple=True, metavar="CODES", help="Never report these codes or prefixes.")
@click.option("--rules", "user_rules", multiple=True, metavar="FILE", help="Extra rule file (repeatable).")
@click.option("--baseline", type=click.Path(path_type=Path), metavar="FILE",
              help="Do not report findings recorded in FILE.")
@click.option("--write-baseline", type=click.Path(path_type=Path), metavar="FILE",
              help="Record every current finding in FILE and exit 0.")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="pyproject.toml to read [tool.hipport] from. Default: the closest one upwards.")
@click.option("-q", "--quiet", is_flag=True, help="No summary line.")
def check(paths: tuple[Path, ...], fmt: str, fail_on: str | None, hip_version: str | None,
          select: tuple[str, ...], ignore: tuple[str, ...], user_rules: tuple[str, ...],
          baseline: Path | None, write_baseline: Path | None, config_path: Path | None, quiet: bool) -> None:
    """Report CUDA code that will not port to HIP; change nothing.

    Prints 'path:line:col: severity CODE message' for each finding, sorted by
    path and line. Exits 1 when a finding reaches --fail-on, 0 otherwise, and 2
    on usage errors. Silence one finding with '// hipport: ignore[CODE]' on its
    line or the line before, or a whole file with '// hipport: file-ignore[CODE]'.
    """
    from hipport.baseline import BaselineError, load_baseline, write_baseline as save_baseline
    from hipport.check import format_line, run_check
    from hipport.policy import Policy

    settings = _settings(config_path, hip_version=hip_version, rules=tuple(Path(r) for r in user_rules),
                         select=_codes(select), ignore=_codes(ignore), fail_on=fail_on, baseline=baseline)
    options = _options(settings.hip_version, settings.launch_syntax, settings.roc)
    rules = _load_rules(tuple(str(r) for r in settings.rules))
    known = None
    if settings.baseline is not None and write_baseline is None:
        try:
            known = load_baseline(settings.baseline)
        except BaselineError as exc:
            _fail(str(exc))
    policy = Policy(settings.select, settings.ignore, settings.severity)
    run = run_check(list(paths), rules, options, policy, known)
    for message in run.errors:
        click.echo(f"hipport: {message}", err=True)
    if write_baseline is not None:
        try:
            count = save_baseline(write_baseline, run.results)
        except OSError as exc:
            _fail(f"{write_baseline}: cannot write baseline: {exc.strerror}")
        click.echo(f"hipport: recorded {count} finding(s) in {write_baseline}", err=True)
        sys.exit(2 if run.errors else 0)
    if fmt == "text":
        for path, finding in sorted(run.findings(), key=lambda pf: (pf[0], pf[1].line, pf[1].column, pf[1].code)):
            click.echo(format_line(path, finding))
        if not quiet:
            counts = {"error": 0, "warning": 0, "info": 0}
            for _, finding in run.findings():
                counts[finding.severity.value] += 1
            hidden = []
            if run.suppressed:
                hidden.append(f"{run.suppressed} suppressed")
            if run.baselined:
                hidden.append(f"{run.baselined} in baseline")
            click.echo(f"hipport check: {len(run.results)} file(s); {counts['error']} error(s), "
                       f"{counts['warning']} warning(s), {counts['info']} info"
                       + (f" ({', '.join(hidden)})" if hidden else ""), err=True)
    else:
        from hipport import api
        from hipport.emit.report import dumps

        report = api.report_for(run.results, rules, options,
                                {"suppressed": run.suppressed, "baselined": run.baselined})
        if fmt == "json":
            click.echo(dumps(report), nl=False)
        else:
            from hipport.report.sarif import render_sarif

            click.echo(render_sarif(report, rules), nl=False)
    if run.errors:
        sys.exit(2)
    sys.exit(1 if run.fails(settings.fail_on) else 0)


@main.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--offload-arch", default="gfx90a", show_default=True, help="AMD GPU target to compile for.")
@click.option("-I", "include_dirs", multiple=True, type=click.Path(path_type=Path), help="Extra include directory.")
@click.option("-D", "defines", multiple=True, help="Extra preprocessor define.")
def verify(path: Path, offload_arch: str, include_dirs: tuple[Path, ...], defines: tuple[str, ...]) -> None:
    """Compile ported sources under PATH with hipcc -fsyntax-only (no GPU needed).

    Prints OK, FAIL (with the first error) or NO-LIB (a ROCm library header that
    is not installed here) for each translation unit. Exits 1 if any failed.
    """
    from hipport.verify import INSTALL_HINT, compile_check, find_hipcc, library_headers, status, translation_units

    hipcc = find_hipcc()
    if hipcc is None:
        _fail(INSTALL_HINT)
    rocm_headers = library_headers(_load_rules(()))
    units = translation_units(path)
    include_dirs = tuple(include_dirs) + tuple(sorted({u.parent for u in units}))
    counts = {"OK": 0, "FAIL": 0, "NO-LIB": 0}
    for unit in units:
        state, detail = status(compile_check(unit, offload_arch, include_dirs, defines, hipcc=hipcc), rocm_headers)
        counts[state] += 1
        click.echo(f"{state:6} {unit}" + (f": {detail}" if detail else ""))
    click.echo(f"hipport verify: {counts['OK']} ok, {counts['FAIL']} failed, "
               f"{counts['NO-LIB']} need a ROCm library that is not installed")
    if counts["FAIL"]:
        sys.exit(1)


@main.command()
@click.argument("name")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--rules", "user_rules", multiple=True, metavar="FILE", help="Extra rule file (repeatable).")
def explain(name: str, fmt: str, user_rules: tuple[str, ...]) -> None:
    """Show what hipport knows about a CUDA or HIP NAME: mapping, library, versions.

    Unknown names get the closest known names as suggestions (exit status 1).
    """
    import json

    from hipport.explain import explain as explain_name, render_explain

    result = explain_name(name, _load_rules(user_rules))
    click.echo(json.dumps(result, indent=2) if fmt == "json" else render_explain(result))
    if not result["known"]:
        sys.exit(1)


@main.group()
def rules() -> None:
    """Inspect and validate rule files."""


@rules.command("stats")
@click.option("--reference", type=click.Path(path_type=Path), metavar="CSV",
              help="cuda-hip-mappings.csv to measure coverage against.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules_stats(reference: Path | None, fmt: str) -> None:
    """Names, mapped and unsupported per library, and coverage of the reference data."""
    import csv
    import json

    from hipport.explain import stats

    rows = None
    if reference is not None:
        try:
            with open(reference, newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
        except OSError as exc:
            _fail(f"{reference}: {exc.strerror}")
    table = stats(_load_rules(()), rows)
    if fmt == "json":
        click.echo(json.dumps(table, indent=2))
        return
    header = f"{'library':18} {'names':>6} {'mapped':>7} {'unsupported':>12}" + (
        f" {'coverage':>9}" if rows is not None else "")
    click.echo(header)
    for row in table:
        line = f"{row['library']:18} {row['names']:6d} {row['mapped']:7d} {row['unsupported']:12d}"
        if rows is not None:
            line += f" {row['coverage']:8.2f}%" if row["coverage"] is not None else "         -"
        click.echo(line)


@rules.command("validate")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
def rules_validate(files: tuple[Path, ...]) -> None:
    """Check rule FILES against the schema; errors are printed as file:line: message."""
    from hipport.rules.loader import parse_rule_file
    from hipport.rules.schema import RuleFileError

    failed = False
    for path in files:
        try:
            parse_rule_file(path, path.read_bytes())
            click.echo(f"{path}: ok")
        except OSError as exc:
            click.echo(f"{path}:0: cannot read: {exc.strerror}", err=True)
            failed = True
        except RuleFileError as exc:
            click.echo(str(exc), err=True)
            failed = True
    if failed:
        sys.exit(1)


def _print_findings(results) -> None:
    for result in sorted(results, key=lambda r: r.path):
        for f in result.findings:
            click.echo(f"{result.path}:{f.line}:{f.column}: {f.severity.value} {f.code} {f.message}", err=True)


def _print_summary(summary: dict, elapsed: float) -> None:
    sev = summary["findings_by_severity"]
    click.echo(
        f"hipport: {summary['files']} file(s), {summary['changed']} changed, {summary['edits']} edit(s), "
        f"{summary['converted']} reference(s) ported, {summary['unmapped']} unmapped; "
        f"{sev['error']} error(s), {sev['warning']} warning(s), {sev['info']} info; {elapsed:.2f}s",
        err=True,
    )
