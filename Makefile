# Two entry points: `make repro` rebuilds the pipeline, `make test` runs the tests.
# Both create .venv on first use; later runs reinstall only when pyproject.toml changes.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# torch is installed first, by pip, at the version pyproject.toml pins. From the package registry
# that is, on Linux x86-64, the CUDA build (several GB); TORCH_INDEX=https://download.pytorch.org/whl/cpu
# takes the CPU-only build from PyTorch's own index instead (docs/design.md). Pip reads the machine's
# pip configuration (a local wheel folder, a mirror); uv, which does not, then installs the rest
# from the package registry, downloading in parallel and keeping that torch. The bytecode is
# compiled at install (where PYTHONDONTWRITEBYTECODE is set, CI images, every process would otherwise
# compile each module it imports from source): uv its own packages, compileall torch's on every core
# (pip's one-process compile took 39 s of a 48 s torch install; this, 11 s). Its errors are ignored, as
# pip ignores them: torch ships a test file in Python 3.12 syntax.
TORCH  := $(shell grep -o '"torch==[^"]*"' pyproject.toml | tr -d '"')
UV     := uv==0.13.9
TORCH_INDEX ?=

.PHONY: setup repro test bench bench-d2l clean plots
setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX)) '$(TORCH)'
	$(BIN)/python -m compileall -qq -j 0 "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" || true
	$(BIN)/python -m pip install --quiet --disable-pip-version-check '$(UV)'
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[test]'
	touch $(STAMP)

# CORPUS=DIR points the `corpus` DVC remote at a local mirror (written to .dvc/config.local only).
repro: setup
	@if [ -n "$(CORPUS)" ]; then $(BIN)/dvc remote modify --local corpus url "$$(realpath $(CORPUS))"; fi
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc repro

# dvc_plots/index.html from the pipeline's outputs, readable offline: .dvc/config's plots.html_template is
# .dvc/plots/offline.html, which inlines Vega (docs/scripts/dvc_plots_template.py writes it).
plots: setup
	$(BIN)/dvc plots show

# The suite on every core (pytest-xdist), a test file to a worker, in collection order: the longest
# files first (tests/conftest.py). A file's module-scoped fixtures are built once and the
# end-to-end pipeline's tests run in order. TEST_WORKERS=0 runs it in one process.
# Only the plugins the suite uses are loaded: pytest rewrites the asserts of every module of an
# auto-loaded plugin's package (hydra, anyio and hypothesis, 190 modules), compiled from source in
# each of its processes where PYTHONDONTWRITEBYTECODE is set (CI images), 5-9 s of CPU a run.
TEST_WORKERS ?= auto
test: setup
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder \
	  --disable-plugin-autoload -p xdist -p hypothesispytest

bench: setup
	$(BIN)/attention-lab bench --reference

# d2l 0.17.6's own training loop against the project's, one process (src/attention_lab/bench/d2l_side_by_side.py).
# d2l is installed without its pinned dependencies, which would replace this project's.
bench-d2l: setup
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps d2l==0.17.6
	$(BIN)/python -m attention_lab.bench.d2l_side_by_side $(or $(CORPUS_ZIP),data/fra-eng.zip)

clean:
	rm -rf $(VENV)
