# Two commands set up and run everything on a fresh machine:
#   make demo   convert examples/ to HIP and compile the result with hipcc
#   make test   run the test suite (installs what it needs first)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
HIP_PKGS := hipcc libamdhip64-dev libhiprand-dev librocrand-dev libhipsparse-dev librocprim-dev
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test hipcc rules clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

# Debian's HIP 5.2 compiler: ported code is judged by compiling it.
hipcc:
	@command -v hipcc >/dev/null 2>&1 || { \
	  echo "installing Debian's hipcc ($(HIP_PKGS))"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(HIP_PKGS) >/dev/null; }

demo: $(STAMP) hipcc
	rm -rf demo-out
	$(BIN)/hipport convert examples -o demo-out --report demo-out.json
	$(BIN)/hipport verify demo-out

test: $(STAMP) hipcc
	$(BIN)/pytest -q

# Regenerate rules/generated from ../shared/reference (commit the result).
rules: $(STAMP)
	$(BIN)/python tools/gen_rules.py

clean:
	rm -rf demo-out demo-out.json .pytest_cache
