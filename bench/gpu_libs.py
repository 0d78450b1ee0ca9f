"""Build HIP's libraries for NVIDIA from their sources: the GPU step's hipBLAS, hipFFT, hipSOLVER,
hipSPARSE, hipRAND (thin layers over cuBLAS, cuFFT, cuSOLVER, cuSPARSE and cuRAND) and hipCUB's
headers (over CUB), installed the way ROCm lays them out:

    PREFIX/include/hipblas/hipblas.h, PREFIX/include/hipcub/hipcub.hpp, ...   (the public headers)
    PREFIX/lib/libhipblas.so, ...                                            (each linked to its CUDA library)

Two steps, like bench/gpu_corpus.py:

    python3 bench/gpu_libs.py stage SOURCES.tar.gz hipBLAS=GITDIR[@REF] ...   # dev machine: the source
                                                                             # trees, out of git, to carry
    python3 bench/gpu_libs.py build SRC PREFIX --hip-nvidia DIR [--tarball F] # GPU machine: nvcc only

SRC holds one folder per repository (hipBLAS/, hipBLAS-common/, hipFFT/, hipSOLVER/, hipSPARSE/,
hipRAND/, hipCUB/), each its repository's tree (ROCm 6.3: release-staging/rocm-rel-6.3), or it is the
tarball `stage` wrote. Nothing of those sources enters hipport: they are built where they are used.
The build needs python3 and nvcc with CUDA's libraries; `--cuda-libs DIR` adds a tree with
include/ and lib/ (the PyPI wheels' nvidia/cu13) where nvcc's own lacks them. A library whose sources
are missing, or that does not build, is reported and left out; the others are still installed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

DEFAULT_REF = "release-staging/rocm-rel-6.3"
# What ROCm's CMake defines for a HIP library built for NVIDIA (HIP_PLATFORM=nvidia).
PLATFORM_DEFINES = ("-D__HIP_PLATFORM_NVIDIA__", "-D__HIP_PLATFORM_NVCC__")
_VERSION = re.compile(r'(?:VERSION_STRING|_VERSION|rocm_setup_version\s*\(\s*VERSION)\s*"?(\d+)\.(\d+)\.(\d+)')
_TEMPLATE = re.compile(r"@(\w+?)_VERSION_(MAJOR|MINOR|PATCH|TWEAK|NUMBER)@")


@dataclass(frozen=True)
class Library:
    """How one library's NVIDIA back end is built, after its CMake files."""

    name: str  # libNAME.so and PREFIX/include/NAME/
    repo: str  # its folder under SRC
    headers: str  # the public headers' folder in the tree, installed as PREFIX/include/NAME/
    sources: tuple[str, ...] = ()  # none: headers only
    cuda: tuple[str, ...] = ()  # the CUDA libraries it wraps
    language: str = "c++"  # "cu": CMake builds it as CUDA
    private: tuple[str, ...] = ()  # private include folders in the tree
    export: str | None = None  # the export header CMake's generate_export_header writes, under NAME/
    needs: tuple[str, ...] = ()  # libraries whose headers its own include
    compat: str = ""  # force-included into its units: what a newer CUDA library dropped that its sources use
    defines: tuple[str, ...] = ()  # what its CMake defines by default


LIBRARIES = (
    Library("hipblas-common", "hipBLAS-common", "library/include"),
    Library(
        "hipblas",
        "hipBLAS",
        "library/include",
        ("library/src/nvidia_detail/hipblas.cpp", "library/src/hipblas_auxiliary.cpp"),
        ("cublas",),
        private=("library/src/include",),
        export="hipblas-export.h",
        needs=("hipblas-common",),
        defines=("__HIP_PLATFORM_SOLVER__",),  # BUILD_WITH_SOLVER, on by default: getrf, getrs, geqrf, gels
    ),
    Library(
        "hipfft",
        "hipFFT",
        "library/include/hipfft",
        ("library/src/nvidia_detail/hipfft.cpp",),
        ("cufft",),
        export="hipfft-export.h",
        # cuFFT 12 (CUDA 13) dropped two results that hipFFT 6.3 still maps: their old values
        compat="#include <cufft.h>\n#if CUFFT_VERSION >= 12000\n"
        "#define CUFFT_INCOMPLETE_PARAMETER_LIST ((cufftResult)0xA)\n"
        "#define CUFFT_PARSE_ERROR ((cufftResult)0xC)\n#endif\n",
    ),
    Library(
        "hipsolver",
        "hipSOLVER",
        "library/include",
        tuple(
            f"library/src/{unit}.cpp"
            for unit in (
                "nvidia_detail/hipsolver_conversions",
                "nvidia_detail/hipsolver",
                "nvidia_detail/hipsolver_dense",
                "nvidia_detail/hipsolver_dense64",
                "nvidia_detail/hipsolver_refactor",
                "nvidia_detail/hipsolver_sparse",
                "common/hipsolver_dense_common",
            )
        ),
        ("cusolver", "cublas", "cusparse"),
        private=("library/src/include",),
        export="internal/hipsolver-export.h",
    ),
    Library(
        "hipsparse",
        "hipSPARSE",
        "library/include",
        ("library/src/nvidia_detail/hipsparse.cpp",),
        ("cusparse",),
        export="hipsparse-export.h",
    ),
    Library(
        "hiprand",
        "hipRAND",
        "library/include/hiprand",
        ("library/src/nvidia_detail/hiprand.cpp",),
        ("curand",),
        language="cu",
    ),
    Library("hipcub", "hipCUB", "hipcub/include/hipcub"),
)
BY_NAME = {lib.name: lib for lib in LIBRARIES}


@dataclass(frozen=True)
class Toolchain:
    nvcc: str
    hip_nvidia: Path  # HIP's NVIDIA headers (holding hip/hip_runtime.h)
    cuda_libs: Path | None  # an extra tree with CUDA libraries' include/ and lib/
    arch: str

    def compile_command(self, lib: Library, tree: Path, prefix: Path, unit: Path, obj: Path) -> list[str]:
        includes = [prefix / "include", prefix / "include" / lib.name, *(tree / p for p in lib.private)]
        includes += [unit.parent, self.hip_nvidia] + ([self.cuda_libs / "include"] if self.cuda_libs else [])
        language = ["-x", "cu", f"-arch={self.arch}"] if lib.language == "cu" else ["-x", "c++"]
        compat = ["-include", str(obj.with_suffix(".compat.h"))] if lib.compat else []
        if lib.compat:
            obj.with_suffix(".compat.h").write_text(lib.compat, encoding="utf-8")
        return [
            self.nvcc,
            *language,
            "-std=c++17",
            "-O2",
            "-w",
            "-Xcompiler",
            "-fPIC",
            *PLATFORM_DEFINES,
            *(f"-D{d}" for d in lib.defines),
            *(f"-I{d}" for d in includes),
            *compat,
            "-c",
            str(unit),
            "-o",
            str(obj),
        ]

    def link_command(self, lib: Library, objects: list[Path], output: Path) -> list[str]:
        dirs = [f"-L{self.cuda_libs / 'lib'}"] if self.cuda_libs else []
        cuda = [f"-l{name}" for name in lib.cuda]
        return [self.nvcc, "-shared", "-o", str(output), *map(str, objects), *dirs, *cuda, "-lcudart"]


def version(tree: Path) -> tuple[int, int, int]:
    """The library's version as its CMakeLists.txt sets it (what rocm_setup_version is given)."""
    try:
        found = _VERSION.search((tree / "CMakeLists.txt").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        found = None
    if found is None:
        raise BuildError(f"{tree / 'CMakeLists.txt'}: no version found")
    major, minor, patch = map(int, found.groups())
    return major, minor, patch


def configured(template: str, numbers: tuple[int, int, int]) -> str:
    """A version header's .in template with its @name_VERSION_*@ filled in, as CMake's configure_file."""
    major, minor, patch = numbers
    values = {
        "MAJOR": major,
        "MINOR": minor,
        "PATCH": patch,
        "TWEAK": 0,
        "NUMBER": major * 100000 + minor * 100 + patch,
    }
    return _TEMPLATE.sub(lambda m: str(values[m.group(2)]), template)


def export_header(name: str) -> str:
    """What CMake's generate_export_header writes for a shared library with default visibility."""
    macro = name.upper().replace("-", "_")
    return (
        f"/* generate_export_header({name}), written by bench/gpu_libs.py */\n"
        f"#ifndef {macro}_EXPORT_H\n#define {macro}_EXPORT_H\n"
        f'#define {macro}_EXPORT __attribute__((visibility("default")))\n'
        f'#define {macro}_NO_EXPORT __attribute__((visibility("hidden")))\n'
        f"#define {macro}_DEPRECATED __attribute__((__deprecated__))\n"
        f"#define {macro}_DEPRECATED_EXPORT {macro}_EXPORT {macro}_DEPRECATED\n"
        f"#define {macro}_DEPRECATED_NO_EXPORT {macro}_NO_EXPORT {macro}_DEPRECATED\n"
        f"#endif\n"
    )


class BuildError(Exception):
    """One library could not be built: one line for the log."""


def install_headers(lib: Library, tree: Path, prefix: Path) -> None:
    source = tree / lib.headers
    if not source.is_dir():
        raise BuildError(f"{source}: no such folder (is {lib.repo} the tree of ROCm/{lib.repo}?)")
    target = prefix / "include" / lib.name
    shutil.rmtree(target, ignore_errors=True)
    numbers = version(tree)
    for path in sorted(source.rglob("*")):
        if not path.is_file():
            continue
        relative = path.relative_to(source)
        if path.suffix == ".in":
            relative = relative.with_suffix("")
            text = configured(path.read_text(encoding="utf-8"), numbers)
            leftover = re.search(r"@[A-Za-z_]+@", text)
            if leftover:
                raise BuildError(f"{path}: {leftover.group()} is not a version field")
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            (target / relative).write_text(text, encoding="utf-8")
        else:
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / relative)
    if lib.export is not None:
        (target / lib.export).write_text(export_header(lib.name), encoding="utf-8")


def build_library(lib: Library, src: Path, prefix: Path, tools: Toolchain, jobs: int, log) -> str:
    """Install the library's headers and build its shared library; one line of what was done."""
    tree = src / lib.repo
    started = time.perf_counter()
    install_headers(lib, tree, prefix)
    if not lib.sources:
        return f"{lib.name}: headers {'.'.join(map(str, version(tree)))}"
    units = [tree / s for s in lib.sources]
    missing = [str(u) for u in units if not u.is_file()]
    if missing:
        raise BuildError(f"missing sources: {', '.join(missing)}")
    objects_dir = prefix / "build" / lib.name
    objects_dir.mkdir(parents=True, exist_ok=True)
    objects = [objects_dir / (u.stem + ".o") for u in units]
    commands = [tools.compile_command(lib, tree, prefix, u, o) for u, o in zip(units, objects)]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(_run, commands))
    for command, (code, output) in zip(commands, results):
        log.write(" ".join(command) + "\n" + output)
        if code != 0:
            errors = [line for line in output.splitlines() if "error" in line]
            raise BuildError(f"{Path(command[command.index('-c') + 1]).name}: {errors[0] if errors else output[-300:]}")
    (prefix / "lib").mkdir(parents=True, exist_ok=True)
    link = tools.link_command(lib, objects, prefix / "lib" / f"lib{lib.name}.so")
    code, output = _run(link)
    log.write(" ".join(link) + "\n" + output)
    if code != 0:
        raise BuildError(f"link: {output.strip().splitlines()[-1] if output.strip() else code}")
    shutil.rmtree(objects_dir, ignore_errors=True)
    seconds = time.perf_counter() - started
    numbers = ".".join(map(str, version(tree)))
    return f"{lib.name}: lib{lib.name}.so {numbers} over {', '.join(lib.cuda)} ({seconds:.0f} s)"


def _run(command: list[str]) -> tuple[int, str]:
    done = subprocess.run(command, capture_output=True, text=True, errors="replace")
    return done.returncode, done.stdout + done.stderr


def build(src: Path, prefix: Path, tools: Toolchain, names: list[str], jobs: int) -> int:
    """Build every named library (its needs first); 0 when all built, 1 when some did not."""
    prefix.mkdir(parents=True, exist_ok=True)
    order: list[Library] = []
    for name in names:
        for needed in (*BY_NAME[name].needs, name):
            if BY_NAME[needed] not in order:
                order.append(BY_NAME[needed])
    failed = []
    with open(prefix / "build.log", "w", encoding="utf-8") as log:
        # the libraries build side by side, each with its share of the jobs: hipBLAS's one big unit
        # is the longest, and the others finish beside it
        share = max(1, jobs // max(1, sum(bool(lib.sources) for lib in order)))
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = {lib.name: pool.submit(_one, lib, src, prefix, tools, share, log) for lib in order}
        for name, future in futures.items():
            line, ok = future.result()
            print(("built  " if ok else "FAILED ") + line, flush=True)
            if not ok:
                failed.append(name)
    shutil.rmtree(prefix / "build", ignore_errors=True)
    (prefix / "BUILT.txt").write_text(
        "".join(f"{lib.name}\n" for lib in order if lib.name not in failed), encoding="utf-8"
    )
    print(f"gpu_libs: {len(order) - len(failed)} of {len(order)} built into {prefix}; log: {prefix / 'build.log'}")
    return 1 if failed else 0


def _one(lib: Library, src: Path, prefix: Path, tools: Toolchain, jobs: int, log) -> tuple[str, bool]:
    try:
        return build_library(lib, src, prefix, tools, jobs, log), True
    except (BuildError, OSError) as exc:
        return f"{lib.name}: {exc}", False


def stage(output: Path, repos: list[str]) -> int:
    """Write the named repositories' trees (git archive of REF) into one tarball, one folder each."""
    with tempfile.TemporaryDirectory(prefix="gpu-libs-stage-") as tmp:
        for spec in repos:
            name, _, where = spec.partition("=")
            gitdir, _, ref = where.partition("@")
            if not name or not gitdir:
                print(f"gpu_libs: {spec}: give NAME=GITDIR[@REF]", file=sys.stderr)
                return 2
            tree = Path(tmp) / name
            tree.mkdir()
            archive = subprocess.run(["git", "-C", gitdir, "archive", ref or DEFAULT_REF], capture_output=True)
            if archive.returncode != 0:
                print(f"gpu_libs: {spec}: {archive.stderr.decode(errors='replace').strip()}", file=sys.stderr)
                return 2
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        output.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(output, "w:gz") as tar:
            for spec in repos:
                tar.add(Path(tmp) / spec.partition("=")[0], arcname=spec.partition("=")[0], filter=_sources_only)
    print(f"gpu_libs: {output} ({output.stat().st_size / 2**20:.1f} MiB)")
    return 0


def _sources_only(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    """What a build reads: the library folders and the top CMakeLists.txt (its version)."""
    parts = Path(info.name).parts
    if len(parts) <= 1 or parts[1] in ("CMakeLists.txt", "library", "hipcub"):
        return info
    return None


def unpacked(src: Path, scratch: Path) -> Path:
    if src.is_dir():
        return src
    with tarfile.open(src) as tar:
        tar.extractall(scratch, filter="data")
    return scratch


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    staged = sub.add_parser("stage", help="dev machine: the source trees into one tarball")
    staged.add_argument("output", type=Path)
    staged.add_argument("repos", nargs="+", metavar="NAME=GITDIR[@REF]")
    built = sub.add_parser("build", help="GPU machine: build and install the libraries")
    built.add_argument("src", type=Path, help="the source trees' folder, or the tarball 'stage' wrote")
    built.add_argument("prefix", type=Path)
    built.add_argument("--hip-nvidia", type=Path, required=True, help="HIP's NVIDIA headers (DIR or DIR/include)")
    built.add_argument("--cuda-libs", type=Path, help="extra CUDA libraries' tree (include/, lib/)")
    built.add_argument("--nvcc", default=shutil.which("nvcc") or "nvcc")
    built.add_argument("--arch", default="sm_90")
    built.add_argument("--only", help="comma-separated library names (default: all)")
    built.add_argument("--tarball", type=Path, help="also pack PREFIX into this .tar.gz")
    built.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 4)
    args = parser.parse_args(argv)
    if args.step == "stage":
        return stage(args.output.resolve(), args.repos)
    names = [n.strip() for n in args.only.split(",")] if args.only else [lib.name for lib in LIBRARIES]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        parser.error(f"unknown libraries: {', '.join(unknown)} (known: {', '.join(BY_NAME)})")
    hip = args.hip_nvidia / "include" if (args.hip_nvidia / "include" / "hip").is_dir() else args.hip_nvidia
    tools = Toolchain(args.nvcc, hip.resolve(), args.cuda_libs.resolve() if args.cuda_libs else None, args.arch)
    prefix = args.prefix.resolve()
    with tempfile.TemporaryDirectory(prefix="gpu-libs-src-") as scratch:
        status = build(unpacked(args.src.resolve(), Path(scratch)), prefix, tools, names, args.jobs)
    if args.tarball is not None:
        with tarfile.open(args.tarball, "w:gz") as tar:
            tar.add(prefix / "include", arcname="include")
            if (prefix / "lib").is_dir():
                tar.add(prefix / "lib", arcname="lib")
            tar.add(prefix / "BUILT.txt", arcname="BUILT.txt")
        print(f"gpu_libs: {args.tarball} ({args.tarball.stat().st_size / 2**20:.1f} MiB)")
    return status


if __name__ == "__main__":
    sys.exit(main())
