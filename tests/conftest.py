from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from hipport.options import Options
from hipport.project import ProjectHeaders
from hipport.ruleset.loader import load_rules
from hipport.versions import parse_version

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "convert"


@pytest.fixture(scope="session")
def rules():
    return load_rules(use_cache=False)


@dataclass
class Case:
    name: str
    directory: Path
    input: Path
    expected: Path
    args: list[str]
    compile: bool
    findings: list[str]
    description: str

    def options(self) -> Options:
        return options_from_args(self.args)

    def declared(self, path: Path | None = None) -> frozenset[str]:
        """What the case's own project headers (files beside its input, such as a header it
        includes) declare and mark, as convert on the case's folder sees them."""
        path = path or self.input
        return ProjectHeaders().macros_visible_in(path, path.read_bytes())


def with_edits(edits_of, text: str) -> str:
    """text after the byte edits edits_of(source) plans for it (an engine fix tried on its own)."""
    from hipport.engine.edits import apply_edits

    source = text.encode()
    return apply_edits(source, edits_of(source)).decode()


def options_from_args(args) -> Options:
    """The subset of convert's flags that fixtures and rule self-tests use."""
    args, kwargs = list(args), {}
    while args:
        flag = args.pop(0)
        if flag == "--launch-syntax":
            kwargs["launch_syntax"] = args.pop(0)
        elif flag == "--hip-version":
            kwargs["hip_version"] = parse_version(args.pop(0))
        elif flag == "--roc":
            kwargs["roc"] = True
        elif flag == "--fix-warp-size":
            kwargs["fix_warp_size"] = True
        elif flag == "--port-strings":
            kwargs["port_strings"] = True
        elif flag == "--platform":
            kwargs["platform"] = args.pop(0)
        elif flag == "--torch-version":
            kwargs["dialect_versions"] = (("pytorch", args.pop(0)),)
        else:
            raise ValueError(f"unknown fixture arg {flag}")
    return Options(**kwargs)


def load_cases(root: Path = FIXTURES) -> list[Case]:
    cases = []
    for directory in sorted(p for p in root.iterdir() if p.is_dir()):
        meta = tomllib.loads((directory / "case.toml").read_text(encoding="utf-8"))
        inputs = sorted(directory.glob("input.*"))
        expected = sorted(directory.glob("expected.*"))
        assert len(inputs) == 1 and len(expected) == 1, f"{directory}: one input.* and one expected.* expected"
        cases.append(Case(directory.name, directory, inputs[0], expected[0], meta.get("args", []),
                          meta.get("compile", False), meta.get("findings", []), meta.get("description", "")))
    return cases


CASES = load_cases()
LINT_CASES = load_cases(ROOT / "fixtures" / "lints")


class Terminal:
    """A stream that says it is a terminal and keeps what is written to it (progress lines)."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True
