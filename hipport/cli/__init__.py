"""hipport's command line: argument handling only, one module per command; the work is below.

hipport.launch runs a plain `hipport check` without importing this package.
"""

from __future__ import annotations

import sys

import click

from hipport import __version__
from hipport.cli import check, convert, explain, report, shim, verify
from hipport.console import interrupted_message, print_names_as_bytes


class _Main(click.Group):
    """Every command: names as they are on disk in text output, and Ctrl-C as one line, not a traceback."""

    def invoke(self, ctx):
        print_names_as_bytes()
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            click.echo(interrupted_message(exc), err=True)
            sys.exit(130)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hipport")
def main() -> None:
    """Port CUDA C++ sources to HIP, and report what could not be ported.

    \b
    hipport convert kernel.cu -o kernel.hip   port one file
    hipport convert src/ -o src-hip/          mirror a tree, porting every source
    """


for command in (convert.convert, check.check, report.report, shim.shim, verify.verify, explain.explain, explain.rules):
    main.add_command(command)
