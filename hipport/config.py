"""`[tool.hipport]` in a project's pyproject.toml: team-wide defaults for every command.

The closest pyproject.toml that has a [tool.hipport] table wins, searched from
the current directory upwards, as ruff does. Command-line flags override it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

SEVERITIES = ("error", "warning", "info")
FAIL_ON = ("error", "warning", "info", "never")
PLATFORMS = ("both", "amd", "nvidia")  # hipport.options.PLATFORMS; config imports nothing of hipport
KEYS = {
    "hip-version": str,
    "launch-syntax": str,
    "roc": bool,
    "port-strings": bool,
    "select": list,
    "ignore": list,
    "severity": dict,
    "fail-on": str,
    "rules": list,
    "baseline": str,
    "hip-cpu": str,
    "hip-path": str,
    "rocm-path": str,
    "cuda-lib-path": str,
    "std": str,
    "platform": str,
}


class ConfigError(Exception):
    """A malformed [tool.hipport] table, reported as file:line: message."""


@dataclass(frozen=True)
class Config:
    path: Path | None = None
    hip_version: str | None = None
    launch_syntax: str | None = None
    roc: bool | None = None
    port_strings: bool | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)
    fail_on: str = "error"
    rules: tuple[Path, ...] = ()
    baseline: Path | None = None
    hip_cpu: Path | None = None  # the HIP CPU Runtime checkout, for verify --run
    hip_path: Path | None = None  # HIP headers for verify (HIP's NVIDIA headers with --platform nvidia)
    platform: str | None = None  # what the port must build for: both, amd or nvidia
    rocm_path: Path | None = None  # ROCm library headers for verify (hipblas/, hipcub/, thrust/...)
    cuda_lib_path: Path | None = None  # CUDA library headers for verify --platform nvidia (cublas_v2.h...)
    std: str | None = None  # the C++ standard verify compiles with when the compile database has none


# Any table header or dotted key that names hipport under tool, however it is spelled
# ([tool.hipport], [ tool . "hipport" ], an unclosed [tool.hipport, tool.hipport.x = ...): a file
# with one is read with a TOML parser, which says whether it holds settings or is malformed.
_MENTION = re.compile(rb"""^[ \t]*\[?[ \t]*["']?tool["']?[ \t]*\.[ \t]*["']?hipport\b""", re.M)
_TOOL_TABLE = re.compile(rb"""^[ \t]*\[[ \t]*["']?tool["']?[ \t]*\][^\[]*?^[ \t]*["']?hipport\b""", re.M | re.S)


def find_config(start: Path | None = None) -> Path | None:
    """The closest pyproject.toml upwards that has [tool.hipport] settings, or one that seems to
    have some and does not parse: load_config then says where it is broken."""
    directory = (start or Path.cwd()).resolve()
    for candidate in (directory, *directory.parents):
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            try:
                data = pyproject.read_bytes()
            except OSError:
                continue
            if _MENTION.search(data) or _TOOL_TABLE.search(data):
                return pyproject
    return None


def load_config(path: Path | None) -> Config:
    if path is None:
        return Config()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    import tomllib  # here: most hooks run where no pyproject.toml has a [tool.hipport] table

    try:
        table = tomllib.loads(text).get("tool", {}).get("hipport", {})
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_toml_error(path, exc)) from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a pyproject.toml") from None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}:{_line_of_table(text)}: tool.hipport must be a table ([tool.hipport])")

    def fail(key: str, message: str) -> ConfigError:
        line = _line_of(text, key)
        return ConfigError(f"{path}:{line}: [tool.hipport] {message}" if line else f"{path}: [tool.hipport] {message}")

    for key, value in table.items():
        if key not in KEYS:
            raise fail(key, f"unknown key '{key}' (known: {', '.join(sorted(KEYS))})")
        if not isinstance(value, KEYS[key]):
            raise fail(key, f"'{key}' must be a {KEYS[key].__name__}")
    severity = {str(k): str(v) for k, v in table.get("severity", {}).items()}
    for code, level in severity.items():
        if level not in SEVERITIES:
            raise fail("severity", f"severity of {code} must be one of {', '.join(SEVERITIES)}, not '{level}'")
    fail_on = table.get("fail-on", "error")
    if fail_on not in FAIL_ON:
        raise fail("fail-on", f"fail-on must be one of {', '.join(FAIL_ON)}, not '{fail_on}'")
    platform = table.get("platform")
    if platform is not None and platform not in PLATFORMS:
        raise fail("platform", f"platform must be one of {', '.join(PLATFORMS)}, not '{platform}'")
    base = path.parent
    return Config(
        path=path,
        hip_version=table.get("hip-version"),
        launch_syntax=table.get("launch-syntax"),
        roc=table.get("roc"),
        port_strings=table.get("port-strings"),
        select=tuple(map(str, table.get("select", []))),
        ignore=tuple(map(str, table.get("ignore", []))),
        severity=severity,
        fail_on=fail_on,
        # Relative paths are read from the pyproject's directory, so the
        # setting means the same wherever the command is started.
        rules=tuple(base / r for r in table.get("rules", [])),
        baseline=base / table["baseline"] if "baseline" in table else None,
        hip_cpu=base / table["hip-cpu"] if "hip-cpu" in table else None,
        hip_path=base / table["hip-path"] if "hip-path" in table else None,
        platform=platform,
        rocm_path=base / table["rocm-path"] if "rocm-path" in table else None,
        cuda_lib_path=base / table["cuda-lib-path"] if "cuda-lib-path" in table else None,
        std=table.get("std"),
    )


def _line_of(text: str, key: str) -> int | None:
    in_table = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_table = _TABLE_HEADER.match(stripped) is not None
        elif in_table and re.match(rf'"?{re.escape(key)}"?\s*=', stripped):
            return number
    return _line_of_table(text)


_TABLE_HEADER = re.compile(r"""\[[ \t]*["']?tool["']?[ \t]*\.[ \t]*["']?hipport["']?[ \t]*\]""")


def _line_of_table(text: str) -> int | None:
    match = _MENTION.search(text.encode("utf-8", "surrogateescape"))
    return text.count("\n", 0, match.start()) + 1 if match else None


def _toml_error(path: Path, exc: Exception) -> str:
    """file:line: message for a TOML error; no line where the parser names none (the end of the
    document: what is unclosed began earlier, and the parser does not say where)."""
    message = str(exc)
    line = getattr(exc, "lineno", None)  # Python 3.14 and later
    at = re.search(r" \(at line (\d+), column \d+\)$", message)
    if at is not None:
        line = line or int(at.group(1))
        message = message[: at.start()]
    return f"{path}:{line}: {message}" if line else f"{path}: {message}"


@dataclass(frozen=True)
class Settings:
    """Config and command-line flags merged: what one run actually uses."""

    hip_version: str | None
    launch_syntax: str
    roc: bool
    rules: tuple[Path, ...]
    select: tuple[str, ...]
    ignore: tuple[str, ...]
    severity: dict[str, str]
    fail_on: str
    baseline: Path | None
    port_strings: bool = False
    platform: str = "both"


def merge(
    config: Config,
    *,
    hip_version: str | None = None,
    launch_syntax: str | None = None,
    roc: bool | None = None,
    rules: tuple[Path, ...] = (),
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    fail_on: str | None = None,
    baseline: Path | None = None,
    port_strings: bool | None = None,
    platform: str | None = None,
) -> Settings:
    """Flags win over the config; rule files add up, the user's last so they take precedence."""
    return Settings(
        hip_version=hip_version or config.hip_version,
        launch_syntax=launch_syntax or config.launch_syntax or "keep",
        roc=roc if roc is not None else bool(config.roc),
        rules=config.rules + tuple(rules),
        select=tuple(select) or config.select,
        ignore=config.ignore + tuple(ignore),
        severity=dict(config.severity),
        fail_on=fail_on or config.fail_on,
        baseline=baseline or config.baseline,
        port_strings=port_strings if port_strings is not None else bool(config.port_strings),
        platform=platform or config.platform or "both",
    )
