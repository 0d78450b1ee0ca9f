"""hipport's command line: argument handling only, one module per command; the work is below.

hipport.launch runs a plain `hipport check` without importing this package.
"""

from __future__ import annotations

import os
import sys

import click

from hipport import __version__
from hipport.cli import check, convert, explain, report, shim, verify
from hipport.console import interrupted_message, print_names_as_bytes


INTERNAL_ERROR_STATUS = 3
DEBUG_ENV = "HIPPORT_DEBUG"


class _Main(click.Group):
    """Every command: names as they are on disk in text output, and Ctrl-C or a bug of hipport's
    own as one line, not a traceback (HIPPORT_DEBUG=1 shows the traceback of a bug)."""

    def invoke(self, ctx):
        print_names_as_bytes()
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            click.echo(interrupted_message(exc), err=True)
            sys.exit(130)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except Exception as exc:  # a bug of hipport's own: one line that says so and what to send
            if os.environ.get(DEBUG_ENV):
                raise
            where = ctx.invoked_subcommand or "hipport"
            click.echo(
                f"hipport {where}: internal error (a hipport bug, please report it): {type(exc).__name__}: {exc}; "
                f"rerun with {DEBUG_ENV}=1 for the traceback",
                err=True,
            )
            sys.exit(INTERNAL_ERROR_STATUS)


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
