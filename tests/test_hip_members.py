"""The struct-field lints (HP416) against real headers: every field of a CUDA struct that the
installed HIP 5.2 struct lacks is named by a rule, and no rule names a field that struct has
(unless only for later releases, which a rule's `added` says)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hipport.ruleset.loader import load_rules
from hipport.versions import parse_version

HIP_INCLUDE = Path("/usr/include/hip")
CUDA_INCLUDE = Path("/usr/local/cuda/include")
# CUDA struct -> the HIP struct it becomes
STRUCTS = {
    "cudaDeviceProp": "hipDeviceProp_t",
    "cudaPointerAttributes": "hipPointerAttribute_t",
    "cudaFuncAttributes": "hipFuncAttributes",
    "cudaMemPoolProps": "hipMemPoolProps",
}


def _body(text: str, name: str) -> str | None:
    """The text between the braces of `typedef struct ... { } name;` or `struct name { };`."""
    for m in re.finditer(rf"\}}\s*{re.escape(name)}\s*;", text):
        depth, i = 0, m.start()
        while i >= 0:
            if text[i] == "}":
                depth += 1
            elif text[i] == "{":
                depth -= 1
                if depth == 0:
                    return text[i + 1 : m.start()]
            i -= 1
    m = re.search(rf"struct\s+(?:__device_builtin__\s+)?{re.escape(name)}\s*\{{", text)
    if m is None:
        return None
    depth, j = 1, m.end()
    while depth and j < len(text):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        j += 1
    return text[m.end() : j - 1]


def members(text: str, name: str) -> set[str] | None:
    body = _body(text, name)
    if body is None:
        return None
    body = re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", body, flags=re.S))
    while re.search(r"\{[^{}]*\}", body):
        body = re.sub(r"\{[^{}]*\}", " ", body)
    return set(re.findall(r"(\w+)\s*(?:\[[^\]]*\]\s*)*(?::\s*\d+\s*)?;", body)) - {"reserved"}


def _headers(directory: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(directory.rglob("*.h")))


def _member_rules():
    rules = load_rules()
    return [r for r in rules.lint_index.rules if r.code == "HP416" and r.match == "member"]


def test_the_parser_reads_fields_of_both_spellings_of_a_struct():
    text = "typedef struct hipX { int a; float b[4]; struct { int inner; } u; unsigned c : 3; } hipX;\nstruct cudaY { int d; };"
    assert members(text, "hipX") == {"a", "b", "u", "c"}
    assert members(text, "cudaY") == {"d"}


@pytest.mark.skipif(not (HIP_INCLUDE / "hip_runtime_api.h").is_file(), reason="no installed HIP headers")
def test_member_rules_agree_with_the_installed_hip_5_2():
    hip = _headers(HIP_INCLUDE)
    assert "#define HIP_VERSION_MINOR 2" in (HIP_INCLUDE / "hip_version.h").read_text()
    cuda = _headers(CUDA_INCLUDE) if (CUDA_INCLUDE / "driver_types.h").is_file() else None
    target = parse_version("5.2")
    for cuda_struct, hip_struct in STRUCTS.items():
        have = members(hip, hip_struct)
        assert have, hip_struct
        flagged = {
            name
            for rule in _member_rules()
            if cuda_struct in rule.receivers and (rule.added is None or target < parse_version(rule.added))
            for name in rule.names
        }
        assert not flagged & have, f"{hip_struct} in HIP 5.2 has {sorted(flagged & have)}"
        if cuda is not None:
            missing = (members(cuda, cuda_struct) or set()) - have
            assert missing <= flagged, f"{cuda_struct} fields HIP 5.2 lacks, with no rule: {sorted(missing - flagged)}"
