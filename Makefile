# Two commands set up and run everything on a fresh machine:
#   make demo   convert examples/ to HIP, compile the result with hipcc and run its
#               programs on the CPU with the HIP CPU Runtime (64-lane wavefronts)
#   make test   run the test suite (installs what it needs first)
PYTHON ?= python3
# The demo targets the HIP that Debian's hipcc is, so its output compiles here.
DEMO_HIP ?= 5.2
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench
# libomp-15-dev: the OpenMP header of the clang Debian's hipcc drives (benchmarks that mix OpenMP host code)
HIP_PKGS := hipcc libomp-15-dev libamdhip64-dev libhiprand-dev librocrand-dev libhipsparse-dev librocprim-dev cmake git
BROWSER_PKGS := chromium chromium-driver
# clang's CUDA headers for --parser clang: the libclang wheel ships none (see hipport/parse/clang/env.py)
CLANG_PKGS := libclang-common-16-dev
CLANG_WRAPPER := /usr/lib/llvm-16/lib/clang/16/include/__clang_cuda_runtime_wrapper.h
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# The HIP CPU Runtime (header-only) for `verify --run`: HIPPORT_HIP_CPU, a vendored copy
# beside the checkout, or a clone of ROCm/HIP-CPU into .hip-cpu/. It needs g++ and TBB.
HIPCPU_PKGS := g++ libtbb-dev
# HIP's NVIDIA headers (verify --platform nvidia): HIPPORT_HIP_PATH or the vendored copy beside the checkout.
HIP_NVIDIA ?= $(firstword $(HIPPORT_HIP_PATH) $(wildcard ../shared/vendor/HIP-nvidia ../../shared/vendor/HIP-nvidia) .hip-nvidia)
# ROCm 6.3's library headers (verify --rocm-path): HIPPORT_ROCM_PATH or the vendored copy beside the checkout.
ROCM_LIBS ?= $(firstword $(HIPPORT_ROCM_PATH) $(wildcard ../shared/vendor/ROCm-libs ../../shared/vendor/ROCm-libs))
# The CUDA libraries' headers (verify --platform nvidia --cuda-lib-path): only include/ of PyPI's
# wheels (1.1 GB of wheels for 3.3 MB of headers, so not a prerequisite of `make test`).
CUDA_LIBS := .cuda-libs
CUDA_LIB_WHEELS := nvidia-cublas==13.10.0.20 nvidia-cufft==12.5.0.14 nvidia-curand==10.4.5.25 \
	nvidia-cusolver==12.4.1.2 nvidia-cusparse==12.9.4.2
HIP_CPU ?= $(firstword $(HIPPORT_HIP_CPU) $(wildcard ../shared/vendor/HIP-CPU ../../shared/vendor/HIP-CPU) .hip-cpu)
# One way to install Debian packages. A machine whose last dpkg run was cut off refuses every
# install until `dpkg --configure -a` finishes it, so that comes first (a no-op otherwise).
APT_INSTALL = DEBIAN_FRONTEND=noninteractive $(SUDO) dpkg --configure -a >/dev/null && \
	$(SUDO) apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq

.PHONY: torch-ext torch-rules demo test lint bytecode hipcc hipcpu browser clang-headers cuda-lib-headers rules docs snapshots clean bench bench-full fuzz corpus gpu-corpus gpu-corpus-port

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	$(COMPILE)
	touch $@

# Bytecode for the checkout. Python reads a module's .pyc even where PYTHONDONTWRITEBYTECODE
# stops it writing one, and compiling hipport from source adds some 80 ms to every start of
# `hipport check` (a pre-commit hook's whole run). An editable install compiles nothing, so the
# install step does, and so does every target that runs hipport, after its $(STAMP) (a source
# edited since is compiled again; the others are only stat'ed). A wheel install (pre-commit's own
# `pip install .`) is compiled by pip. tests/test_bytecode.py checks that the check path then
# imports nothing from source.
COMPILE = $(BIN)/python -m compileall -q hipport
bytecode:
	$(COMPILE)

# Debian's HIP 5.2 compiler: ported code is judged by compiling it.
cuda-lib-headers: $(CUDA_LIBS)/include/cublas_v2.h
$(CUDA_LIBS)/include/cublas_v2.h: | $(STAMP)
	rm -rf $(CUDA_LIBS)/wheels && mkdir -p $(CUDA_LIBS)/include
	$(BIN)/pip download -q --no-deps -d $(CUDA_LIBS)/wheels $(CUDA_LIB_WHEELS)
	$(BIN)/python -c "import sys, zipfile, pathlib; out = pathlib.Path(sys.argv[1]); \
	  [out.joinpath(pathlib.PurePath(n).name).write_bytes(z.read(n)) for w in sys.argv[2:] \
	   for z in [zipfile.ZipFile(w)] for n in z.namelist() if '/include/' in n and not n.endswith('/')]" \
	  $(CUDA_LIBS)/include $(CUDA_LIBS)/wheels/*.whl
	rm -rf $(CUDA_LIBS)/wheels
	test -f $@

# hipcc alone is not enough: the OpenMP header was added to HIP_PKGS later, and machines set up
# before that have hipcc without it.
HIP_OMP_HEADER = $(wildcard /usr/lib/llvm-15/lib/clang/*/include/omp.h)
hipcc:
	@command -v hipcc >/dev/null 2>&1 && test -n "$(HIP_OMP_HEADER)" || { \
	  echo "installing Debian's hipcc ($(HIP_PKGS))"; \
	  $(APT_INSTALL) $(HIP_PKGS) >/dev/null; }

# g++ and TBB build ported programs with the HIP CPU Runtime (verify --run); the runtime
# itself is cloned when no copy is found; without one (no network), the run tests skip.
hipcpu:
	@printf 'int main(){}' | g++ -x c++ - -o /dev/null -ltbb 2>/dev/null || { \
	  echo "installing g++ and TBB ($(HIPCPU_PKGS))"; \
	  $(APT_INSTALL) $(HIPCPU_PKGS) >/dev/null; }
	@test -f $(HIP_CPU)/include/hip/hip_runtime.h || \
	  git clone -q --depth 1 https://github.com/ROCm/HIP-CPU $(HIP_CPU) >/dev/null 2>&1 || \
	  echo "hipcpu: no HIP CPU Runtime in $(HIP_CPU) and no clone (set HIPPORT_HIP_CPU); verify --run and its tests are skipped"

# Debian's headless chromium: the HTML report is tested in a real browser.
browser:
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium ($(BROWSER_PKGS))"; \
	  $(APT_INSTALL) $(BROWSER_PKGS) >/dev/null; }

clang-headers:
	@test -f $(CLANG_WRAPPER) || { \
	  echo "installing clang's CUDA headers ($(CLANG_PKGS))"; \
	  $(APT_INSTALL) $(CLANG_PKGS) >/dev/null; }

demo: $(STAMP) bytecode hipcc hipcpu
	rm -rf demo-out
	$(BIN)/hipport convert examples -o demo-out --rename --hip-version $(DEMO_HIP) --report demo-out.json
	$(BIN)/hipport report --from demo-out.json
	$(BIN)/hipport report --from demo-out.json --format html -o demo-report.html
	$(BIN)/hipport verify demo-out --report demo-out.json
	@if command -v nvcc >/dev/null 2>&1 && [ -d "$(HIP_NVIDIA)/include/hip" ]; then \
	  echo "$(BIN)/hipport verify demo-out --platform nvidia --hip-path $(HIP_NVIDIA) --report demo-out.json"; \
	  $(BIN)/hipport verify demo-out --platform nvidia --hip-path $(HIP_NVIDIA) --report demo-out.json || \
	  echo "demo: what does not build on NVIDIA is above, each with the finding that says why (the demo targets HIP $(DEMO_HIP))"; \
	else echo "demo: no nvcc or HIP's NVIDIA headers ($(HIP_NVIDIA)): the NVIDIA compile is skipped"; fi
	@if test -f $(HIP_CPU)/include/hip/hip_runtime.h; then \
	  echo "$(BIN)/hipport verify demo-out --run --hip-cpu $(HIP_CPU) -j 2"; \
	  $(BIN)/hipport verify demo-out --run --hip-cpu $(HIP_CPU) -j 2; \
	else echo "demo: no HIP CPU Runtime in $(HIP_CPU): the run step (verify --run) is skipped"; fi
	@echo "demo: ported tree in demo-out/, report in demo-report.html"

# The house rules the tools can check: the import layers (pyproject.toml's import-linter
# contracts), ruff's lint and format check, mypy's types, and the size limits (tools/sizes.py).
lint: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/python tools/sizes.py hipport
	$(BIN)/ruff check hipport
	$(BIN)/mypy
	$(BIN)/ruff format --check hipport

# Rewrite fixtures/*/*/findings.snap after a reviewed change in findings (tests/snapshots.py); review the diff.
snapshots: $(STAMP)
	HIPPORT_UPDATE_SNAPSHOTS=1 $(BIN)/pytest -q tests/test_fixtures.py -k snapshot

# docs/codes.md (from rules/codes.toml) and docs/modules.md (from the docstrings); tests/test_docs.py
# fails when either is stale.
docs: $(STAMP)
	$(BIN)/python tools/gen_docs.py

test: lint $(STAMP) bytecode hipcc hipcpu browser clang-headers
	HIPPORT_HIP_CPU=$(abspath $(HIP_CPU)) $(BIN)/pytest -q

# The peer, PyTorch's hipify, is optional: without torch its rows say so.
$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install -q -e '.[test,bench]' || echo "bench: torch not installed; the peer rows will say so"
	touch $@

# Benchmark (bench/run.py): a few minutes; bench-full adds 10,000 files and a 50 MB file.
bench: $(BENCH_STAMP) bytecode
	$(BIN)/python bench/run.py

bench-full: $(BENCH_STAMP) bytecode
	BENCH_FULL=1 $(BIN)/python bench/run.py

# Real code (bench/realcode.py): port CORPUS with the installed hipcc's HIP version, compile every
# unit with `hipport verify --report`, print the table by class, the TUs compiled, the
# clean-verdict precision and the conversion time, and compare with bench/corpus-baseline.json
# (a unit that compiled there and fails now is a regression: exit 1). CORPUS_INCLUDES: the
# corpus's include directories, relative to it. CORPUS_FLAGS: e.g. --allow-regressions.
# CORPUS=../shared/corpora/hecbench (programs with Makefiles) runs bench/oracle.py instead: each
# unit's CUDA original with nvcc is the oracle; the port is compiled for amd-6.3, amd-5.2 and
# nvidia and compared with bench/corpus-hecbench-baseline.json.
CORPUS ?= $(firstword $(wildcard ../shared/corpora/cuda-samples ../../shared/corpora/cuda-samples))
CORPUS_INCLUDES ?= Common
CORPUS_FLAGS ?=
corpus: $(STAMP) bytecode hipcc
ifeq ($(notdir $(abspath $(CORPUS))),hecbench)
	nice -n 10 $(BIN)/python bench/oracle.py --corpus "$(CORPUS)" $(CORPUS_FLAGS)
else
	CORPUS="$(CORPUS)" CORPUS_INCLUDES="$(CORPUS_INCLUDES)" $(BIN)/python bench/realcode.py $(CORPUS_FLAGS)
endif

# PyTorch extensions (bench/torch_ext.py): hipport's port against PyTorch's hipify (extension mode)
# on every file of TORCH_EXT_CORPUS (extension repositories, one directory each; docs/pytorch.md
# says how to get them) that includes a PyTorch CUDA header. TORCH_PYTHON: a venv's Python with
# torch, made here when missing (PyTorch is needed by this target only). TORCH_EXT_FLAGS: e.g.
# --release /tmp/torchwheels/v2.10.0/torch (an older release's hipify against --torch-version 2.10),
# -v, --json FILE. The gate: files that agree, plus those bench/torch_ext_reviewed.toml lists, >= 95%.
TORCH_EXT_CORPUS ?= /tmp/torch-ext-corpus
TORCH_PYTHON ?= /tmp/torchvenv/bin/python
torch-ext: $(STAMP)
	@test -x "$(TORCH_PYTHON)" || { python3 -m venv $(dir $(TORCH_PYTHON)).. && $(dir $(TORCH_PYTHON))pip install -q torch==2.13.0; }
	TORCH_EXT_CORPUS="$(TORCH_EXT_CORPUS)" TORCH_PYTHON="$(TORCH_PYTHON)" nice -n 10 $(BIN)/python bench/torch_ext.py $(TORCH_EXT_FLAGS)

# The PyTorch dialect's rules (tools/gen_torch_rules.py) from unpacked torch packages: every
# TORCH_RELEASES/*/torch (docs/pytorch.md says how the releases were unpacked).
TORCH_RELEASES ?= /tmp/torchwheels
torch-rules: $(STAMP)
	$(BIN)/python tools/gen_torch_rules.py $(foreach d,$(wildcard $(TORCH_RELEASES)/*/torch),--torch $(d))

# CUDA programs on a GPU (bench/gpu_corpus.py; docs/gpu.md): gpu-corpus-port ports cuda-samples and
# examples/ here (--hip-version 6.3) into $(GPU_WORK) beside copies of them and HIP's NVIDIA headers;
# CORPUS=../shared/corpora/hecbench ports that corpus instead, dealt into GPU_SPLIT suites (each within
# one GPU call; GPU_SUITE=hecbench-1 runs one). On the GPU
# machine (python3, click, nvcc; not hipport's other dependencies) `make gpu-corpus` builds every port
# and its CUDA original with nvcc, runs both with the arguments of the program's build, and prints how
# many of the originals that run the port agrees with. Ports that call HIP's libraries need them built
# for NVIDIA: HIP_LIBS=DIR-or-.tar.gz (bench/gpu_libs.py's output), or ROCM_SOURCES=the tarball of
# their sources (bench/gpu_libs.py stage) to build them there first.
GPU_JOBS ?= 16
GPU_WORK ?= bench/gpu-corpus
GPU_SPLIT ?= 2
GPU_CORPUS = $(filter-out %/cuda-samples %/cuda-samples/,$(CORPUS))
GPU_TIMEOUT ?= $(if $(GPU_CORPUS),20,60)
HIP_LIBS ?=
ROCM_SOURCES ?=
GPU_SUITE ?=
GPU_SUITES = $(if $(GPU_SUITE),--suite $(GPU_SUITE) $(if $(GPU_CORPUS),--once),$(if $(GPU_CORPUS),$(foreach i,$(shell seq $(GPU_SPLIT)),--suite $(notdir $(GPU_CORPUS))-$(i)) --once,--suite cuda-samples --suite examples))
gpu-corpus-port: $(STAMP)
	$(BIN)/python bench/gpu_corpus.py port $(GPU_WORK) $(if $(GPU_CORPUS),--corpus $(GPU_CORPUS) --split $(GPU_SPLIT))
gpu-corpus:
	@test -d $(GPU_WORK)/HIP-nvidia || { echo "gpu-corpus: run 'make gpu-corpus-port' first (on the dev machine)"; exit 2; }
	python3 bench/gpu_corpus.py run $(GPU_WORK) -j $(GPU_JOBS) --timeout $(GPU_TIMEOUT) $(GPU_SUITES) \
		$(if $(HIP_LIBS),--hip-libs $(HIP_LIBS)) $(if $(ROCM_SOURCES),--build-libs $(ROCM_SOURCES))

# Fuzzing (tests/fuzz/): CI runs a few hundred examples; this runs the hypothesis tests with
# FUZZ_EXAMPLES examples each, the 100 MB inputs, then atheris for FUZZ_SECONDS (when it installs).
FUZZ_EXAMPLES ?= 20000
FUZZ_SECONDS  ?= 600
fuzz: $(STAMP) bytecode
	HIPPORT_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) HIPPORT_SLOW_TESTS=1 $(BIN)/pytest -q tests/fuzz
	@$(BIN)/pip install -q -e '.[fuzz]' 2>/dev/null || echo "fuzz: atheris does not install here; hypothesis only"
	@if $(BIN)/python -c "import atheris" 2>/dev/null; then mkdir -p .fuzz/corpus .fuzz/crashes && \
	  $(BIN)/python tests/fuzz/atheris_port.py -max_total_time=$(FUZZ_SECONDS) -timeout=60 -max_len=8192 \
	    -rss_limit_mb=4096 -artifact_prefix=.fuzz/crashes/ .fuzz/corpus fixtures/convert tests/fuzz/regressions; fi

# Regenerate rules/generated from ../shared/reference (commit the result).
rules: $(STAMP)
	$(BIN)/python tools/gen_rules.py
	$(BIN)/python tools/gen_arity.py

clean:
	rm -rf demo-out demo-out.json demo-report.html .pytest_cache bench/corpus bench/realcode-out .fuzz
