"""rules/macros.toml against the HIP headers of both platforms: each HIP macro must be defined
where a ported file tests it (the runtime and the HIP header its CUDA header is ported to), on
AMD (hipcc) and on NVIDIA (nvcc with HIP's nvidia_detail headers), or the guarded code would
still vanish on one of them."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hipport.engine.macros import in_condition
from hipport.verify import compile_bytes, find_hipcc

INCLUDE_ROOTS = (Path("/usr/include"), Path("/opt/rocm/include"))


def _installed(header: str) -> Path | None:
    return next((root / header for root in INCLUDE_ROOTS if (root / header).is_file()), None)


def _checked_pairs(rules) -> list[tuple[str, str, str]]:
    """(cuda macro, hip macro, hip header) for every rule whose HIP header is installed here."""
    pairs = []
    for rule in rules.macros.values():
        if rule.hip is None or rule.header is None or rule.added:
            continue  # added: newer than Debian's HIP 5.2, checked against HIP's documentation
        header = rules.headers[rule.header]
        target = header.older if header.added else header.hip
        if target is not None and _installed(target):
            pairs.append((rule.cuda, rule.hip, target))
    return pairs


def test_every_macro_names_a_header_the_rules_map(rules):
    for rule in rules.macros.values():
        if rule.header is not None:
            assert rule.header in rules.headers, f"{rule.cuda}: <{rule.header}> is not in rules/headers"


def test_each_hip_macro_is_defined_in_the_installed_hip_headers(rules):
    """By the header itself or by the runtime a port includes before it (plan_includes)."""
    pairs = _checked_pairs(rules)
    if not pairs:
        pytest.skip("no HIP headers installed here")
    for cuda, hip, header in pairs:
        assert _defines(header, hip, set()) or _defines(rules.runtime_include, hip, set()), (
            f"{cuda} -> {hip}: neither <{header}> nor <{rules.runtime_include}> (and what they include) define it"
        )


def _defines(header: str, macro: str, seen: set[str]) -> bool:
    """Whether header, or a header it includes (<...>, or "..." beside it), has #define macro."""
    path = _installed(header)
    if path is None or header in seen:
        return False
    seen.add(header)
    text = path.read_text(errors="replace")
    if re.search(rf"^[ \t]*#[ \t]*define[ \t]+{re.escape(macro)}\b", text, re.M):
        return True
    included = [m.group(1) for m in re.finditer(r"^[ \t]*#[ \t]*include[ \t]*<([^>]+)>", text, re.M)]
    # "..." includes name a file beside the header (hipsparse.h's "hipsparse-export.h")
    folder = str(Path(header).parent)
    for m in re.finditer(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', text, re.M):
        included.append(m.group(1) if folder == "." else f"{folder}/{m.group(1)}")
    return any(_defines(name, macro, seen) for name in included)


@pytest.mark.hipcc
def test_each_hip_macro_is_defined_where_a_ported_file_tests_it(rules):
    """As a port includes them: the runtime first (HIP's headers need it, see plan_includes)."""
    hipcc = find_hipcc()
    if hipcc is None:
        pytest.fail("hipcc is missing; `make test` installs it")
    pairs = _checked_pairs(rules)
    assert len(pairs) >= 15  # the runtime's headers and hipRAND/hipSPARSE are installed here
    lines = [f"#include <{rules.runtime_include}>"]
    lines += [f"#include <{header}>" for header in sorted({h for _, _, h in pairs})]
    lines += [f'#ifndef {hip}\n#error "{cuda} -> {hip} is not defined by <{header}>"\n#endif'
              for cuda, hip, header in pairs]
    result = compile_bytes("\n".join(lines).encode() + b"\n", name="macros.hip", hipcc=hipcc)
    assert result.ok, result.output


VENDOR = Path(__file__).resolve().parents[1] / ".." / "shared" / "vendor"
# (platform, compiler, flags): HIP 6.3's headers for AMD and for NVIDIA, as vendored
PLATFORMS = {
    "amd-6.3": ("hipcc", ["-x", "hip", "--offload-arch=gfx90a", "-isystem", str(VENDOR / "HIP-amd" / "include")]),
    "nvidia-6.3": ("nvcc", ["-x", "cu", "-std=c++17", "-I", str(VENDOR / "HIP-nvidia" / "include")]),
}


@pytest.mark.hipcc
@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_each_hip_macro_is_defined_on_both_platforms(rules, platform):
    """Every guard the port writes, with the headers of the platform: a guard one platform's
    headers leave undefined would hide the code behind it there (issue 21)."""
    compiler, flags = PLATFORMS[platform]
    include = Path(flags[-1])
    if shutil.which(compiler) is None or not include.is_dir():
        pytest.skip(f"{compiler} or {include} is not here")
    pairs = []
    for rule in rules.macros.values():
        if rule.hip is None or rule.header is None:
            continue
        header = rules.headers[rule.header]
        if header.hip is not None and (include / header.hip).is_file():
            pairs.append((rule.cuda, rule.hip, header.hip))
    assert len(pairs) >= 12  # the runtime's headers, fp16, complex, cooperative groups, math constants
    # What nvcc's implicit cuda_runtime.h defines, code tests without including anything: the
    # port's hip_runtime.h alone must define its counterpart (helper_cuda.h-style headers).
    implicit = _nvcc_implicit_macros()
    lines = [f"#include <{rules.runtime_include}>"]
    lines += [_must_define(cuda, hip, rules.runtime_include) for cuda, hip, _ in pairs if cuda in implicit]
    lines += [f"#include <{header}>" for header in sorted({h for _, _, h in pairs})]
    lines += [_must_define(cuda, hip, header) for cuda, hip, header in pairs if cuda not in implicit]
    env = {**os.environ, "HIP_PLATFORM": "amd"} if compiler == "hipcc" else None
    result = subprocess.run(
        [compiler, *flags, "-E", "-", "-o", os.devnull],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]


def _must_define(cuda: str, hip: str, header: str) -> str:
    return f'#ifndef {hip}\n#error "{cuda} -> {hip} is not defined by <{header}>"\n#endif'


def _nvcc_implicit_macros() -> set[str]:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not here")
    result = subprocess.run(
        ["nvcc", "-x", "cu", "-E", "-Xcompiler", "-dM", "-"], input="", capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return set(re.findall(r"^#define (\w+)", result.stdout, re.M))


@pytest.mark.parametrize("text, word, expected", [
    (b"#if defined(A) && \\\n    B\n", b"B", True),
    (b"#if X \\\r\n  || Y\r\n", b"Y", True),
    (b"  #  elif W\n", b"W", True),
    (b"#ifndef G\n#define G\n", b"G\n", True),
    (b"#define Q 1\n", b"Q", False),
    (b"int a; // #if Z\nZ;\n", b"Z;", False),
    (b"#error E\n", b"E\n", False),
])
def test_in_condition(text, word, expected):
    assert in_condition(text, text.index(word)) is expected
