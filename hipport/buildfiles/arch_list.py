"""GPU target lists set in Makefiles and shell scripts (TORCH_CUDA_ARCH_LIST="7.0;8.0" python setup.py):
the HIP build's variable (PYTORCH_ROCM_ARCH) with the AMD targets, from rules/buildfiles.toml's
build_arch_variable rows that the HIP build reads from the environment.

A variable is migrated in a file only when every value the file gives it is a literal list (or
itself, "$(TORCH_CUDA_ARCH_LIST)"); then its assignments get the gfx targets and every mention of it
the HIP name. A value computed from something else is reported (HP503) and the variable left as it is.
"""

from __future__ import annotations

import re

from hipport.buildfiles.edit import BuildPort

_MAKE_OPERATOR = r"[ \t]*(?:\?=|::=|:=|\+=|!=|=)[ \t]*"
_SHELL_VALUE = r"\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|)`]*"


def port_arch_lists(port: BuildPort, make: bool) -> None:
    """make: a Makefile (assignments at the start of a line that is not a recipe's); otherwise
    a shell script. Recipe lines and scripts set variables the shell's way (X=v command)."""
    for variable in port.rules.arch_variables.values():
        if variable.environment and variable.cuda in port.text:
            _migrate(port, variable, make)


def _migrate(port: BuildPort, variable, make: bool) -> None:
    text, name = port.text, re.escape(variable.cuda)
    values: list[tuple[int, int, str, bool]] = []  # (start, end, value, in Make's syntax)
    if make:
        pattern = rf"^(?![ \t]*\t)[ \t]*(?:export[ \t]+|override[ \t]+)?{name}{_MAKE_OPERATOR}([^#\n]*?)[ \t]*$"
        for m in re.finditer(pattern, text, re.M):
            values.append((m.start(1), m.end(1), m.group(1), True))
    taken = {start for start, *_ in values}
    for m in re.finditer(rf"(?<![\w$({{-]){name}=({_SHELL_VALUE})", text):
        if m.start(1) not in taken and not (make and _is_make_assignment(text, m.start())):
            values.append((m.start(1), m.end(1), m.group(1), False))
    for start, end, value, _ in values:
        if _computed(value, variable.cuda):
            port.finding(
                "HP503",
                start,
                end,
                variable.cuda,
                f"the CUDA architectures come from '{value}': {variable.note}; set {variable.hip} to AMD "
                f"targets ({';'.join(port.settings.offload_arch)}) by hand",
            )
            return
    for start, end, value, in_make in values:
        if "$" not in value:
            port.replace(start, end, _targets(value, port.settings.offload_arch, in_make))
    for m in re.finditer(rf"(?<![\w-]){name}(?!\w)", text):
        port.replace(m.start(), m.end(), variable.hip)


def _is_make_assignment(text: str, at: int) -> bool:
    line = text.rfind("\n", 0, at) + 1
    before = re.match(r"[ \t]*(?:export[ \t]+|override[ \t]+)?\Z", text[line:at])
    return not text.startswith("\t", line) and before is not None


def _computed(value: str, own: str) -> bool:
    """Whether the value comes from elsewhere than a literal list or the variable itself."""
    rest = re.sub(rf"\$(?:\({own}\)|\{{{own}\}}|{own}(?!\w))", "", value)
    return "$" in rest or "`" in rest


def _targets(value: str, targets: tuple[str, ...], in_make: bool) -> str:
    """The AMD targets written as the CUDA list was: its quotes, and its separator where Make's
    syntax keeps the list unquoted."""
    quote = value[:1] if value[:1] in ("'", '"') and value[-1:] == value[:1] and len(value) > 1 else ""
    if quote:
        return f"{quote}{';'.join(targets)}{quote}"
    if in_make:
        return (";" if ";" in value else " ").join(targets)
    return targets[0] if len(targets) == 1 else f'"{";".join(targets)}"'
