"""Port build files (CMake, Makefiles) from CUDA to HIP; rules/buildfiles.toml holds the names."""

from __future__ import annotations

from pathlib import PurePath

from hipport.buildfiles.edit import BuildSettings

__all__ = ["BuildSettings", "build_file_kind", "port_build_file"]

_MAKEFILES = {"makefile", "gnumakefile"}
_SHELL_SUFFIXES = (".sh", ".bash")


def build_file_kind(name: str) -> str | None:
    """'cmake', 'make', 'setup' (setup.py), 'shell', or None for a file that is not a build file
    hipport ports."""
    lower = PurePath(name).name.lower()
    if lower == "cmakelists.txt" or lower.endswith(".cmake"):
        return "cmake"
    if lower in _MAKEFILES or lower.endswith((".mk", ".make")) or lower.startswith("makefile."):
        return "make"
    if lower == "setup.py":
        return "setup"
    if lower.endswith(_SHELL_SUFFIXES):
        return "shell"
    return None


def port_build_file(source: bytes, rules, settings: BuildSettings, path: str, kind: str | None = None):
    """Port one build file's bytes; returns a FileResult like a source port's."""
    from hipport.buildfiles.cmake import port_cmake
    from hipport.buildfiles.edit import BuildPort
    from hipport.buildfiles.make import port_makefile, port_shell
    from hipport.buildfiles.setup_py import port_setup_py
    from hipport.diagnostics import LineIndex, assign_positions_and_fingerprints
    from hipport.engine.edits import apply_edits, order_edits
    from hipport.engine.port import FileResult

    kind = kind or build_file_kind(path)
    port = BuildPort(source.decode("latin-1"), rules.build, settings, codes=rules.codes)
    porters = {"cmake": port_cmake, "setup": port_setup_py, "shell": port_shell}
    porters.get(kind or "", port_makefile)(port)
    ordered, rejected = order_edits(port.edits)
    for edit in rejected:
        port.finding("HP902", edit.start, edit.end, "", "two rewrites overlap here; the later one was skipped")
    result = FileResult(
        path=path,
        source=source,
        output=apply_edits(source, ordered),
        edits=ordered,
        findings=sorted(port.findings, key=lambda f: (f.start, f.code)),
    )
    assign_positions_and_fingerprints(result.findings, LineIndex(source))
    return result
