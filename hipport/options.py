"""Settings that change what a port produces (and so key the cache)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hipport.versions import Version, format_version

LAUNCH_SYNTAXES = ("keep", "hip")
MODES = ("port", "shim")
PARSERS = ("auto", "treesitter", "clang")
PLATFORMS = ("both", "amd", "nvidia")  # what the ported code must build for (HIP's AMD and NVIDIA headers)


@dataclass(frozen=True)
class Options:
    hip_version: Version | None = None  # None: the newest version in the rule data
    launch_syntax: str = "keep"
    roc: bool = False  # emit rocBLAS/rocFFT/... names where the data has them
    port_strings: bool = False  # also rename known CUDA names inside string literals
    mode: str = "port"  # "shim": include the shim header instead of CUDA headers, keep API names
    shim_include: str = "gpu_compat.h"  # how --mode shim spells the #include
    parser: str = "auto"  # "auto": clang when a compile database is given, tree-sitter otherwise
    compile_commands: Path | None = None  # compile_commands.json, or the build directory holding it
    clang_args: tuple[str, ...] = ()  # extra flags for every clang parse
    cuda_path: Path | None = None  # None: CUDA_PATH, CUDA_HOME, then /usr/local/cuda
    fix_warp_size: bool = False  # apply the warp-size lints' provably safe fixes (engine/warp/fix.py)
    platform: str = "both"  # "amd": AMD-only HIP spellings are fine (no HP441)
    # dialects the build chose for every file (a CUDAExtension's sources are PyTorch's), and the
    # release of each a port targets ("pytorch", "2.10"): rules/README.md, Dialects
    dialects: tuple[str, ...] = ()
    dialect_versions: tuple[tuple[str, str], ...] = ()

    def reports_amd_only(self) -> bool:
        """Whether a spelling only AMD's HIP headers take is a finding (HP441)."""
        return self.platform != "amd"

    @property
    def parser_in_use(self) -> str:
        if self.parser == "auto":
            return "clang" if self.compile_commands is not None else "treesitter"
        return self.parser

    def describe(self, newest: Version) -> dict:
        return {
            "hip_version": format_version(self.hip_version or newest),
            "launch_syntax": self.launch_syntax,
            "roc": self.roc,
            **({"port_strings": True} if self.port_strings else {}),
            **({"mode": self.mode, "shim_include": self.shim_include} if self.mode != "port" else {}),
            **({"parser": self.parser_in_use} if self.parser_in_use != "treesitter" else {}),
            **({"fix_warp_size": True} if self.fix_warp_size else {}),
            **({"platform": self.platform} if self.platform != "both" else {}),
            **({"dialects": list(self.dialects)} if self.dialects else {}),
            **({"dialect_versions": dict(self.dialect_versions)} if self.dialect_versions else {}),
        }
