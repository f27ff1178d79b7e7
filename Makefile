# headprune-nb: set up and run in two commands (see README.md)
#   make reproduce   install into .venv, run the default reproduction (Michel et al. Table 4, cpu profile) into
#                    ./headprune-results/ and build its report there (published | committed | yours); git stays clean;
#                    PARAMS="--param n_masks=10 --param max_pairs=28": notebook parameters (the 15-minute version)
#   make test        install into .venv, then run the whole test suite (what CI runs on 2 cores, install and the dry runs
#                    included: 1,116 to 1,347 s in the last three CI runs)
#   make dist        build the sdist and the wheel into dist/
#   make refresh     maintainers: re-run EXPERIMENT afresh into the committed reproduce/results/PROFILE/EXPERIMENT
#                    (the old run set aside in EXPERIMENT.previous; an interrupted refresh resumes when re-run)
#   make extend      maintainers: resume the committed reproduce/results/PROFILE/EXPERIMENT in place after a planned
#                    change of its defaults (more masks, seeds): its records reused, only the new runs made, its
#                    complete.json history kept (a run made in another folder and copied over it would lose that);
#                    no PARAMS: the committed run's parameters (other ones are a new run: make refresh)
#   make docs        build the documentation site into _site/ (offline: Sphinx, MathJax from npm)
# FAIRSEQ=0 leaves out the optional fairseq adapter (its fairseq-fixed build takes about 2 min).
# torch is installed first by tools/install_torch.py: with no GPU (no nvidia-smi that answers), the CPU build from
# PyTorch's CPU index (a plain `pip install torch` would pull several GB of CUDA wheels), the plain index when that
# index cannot be reached, saying so; with a GPU, the plain index. On a GPU machine: make TORCH="torch" (or install
# torch your own way into .venv first).

PYTHON ?= python3
VENV   ?= .venv
TORCH  ?= torch==2.13.0
# FAIRSEQ=1: also build fairseq-fixed for the optional fairseq adapter (about 2 min); 0: leave it out
FAIRSEQ ?= 1
comma  := ,
EXTRAS := dev,minilm,docs$(if $(filter 1,$(FAIRSEQ)),$(comma)fairseq)
BIN    := $(VENV)/bin
EXPERIMENT ?= michel2019_speed
PROFILE ?= cpu
PARAMS ?=

.PHONY: install reproduce report refresh extend refresh-report dist test sync-check lint nbtest pytest docs clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/python tools/install_torch.py "$(TORCH)"
	$(BIN)/pip install -q -e ".[$(EXTRAS)]"
	@# fairseq-fixed: an sdist built against the torch above; --no-deps keeps out a torchaudio that need not match it
	$(if $(filter 1,$(FAIRSEQ)),$(BIN)/pip install -q --no-build-isolation --no-deps fairseq-fixed==0.12.3.1)
	touch $@

# Your run: results and report in ./headprune-results/ (ignored by git), beside the committed ones.
reproduce: install
	$(BIN)/headprune reproduce $(EXPERIMENT) --profile $(PROFILE) $(PARAMS)
	$(BIN)/headprune report --profile $(PROFILE)

report: install
	$(BIN)/headprune report --profile $(PROFILE)

# Maintainers only: overwrite the committed reference run and the committed report, then review and commit them.
refresh: install
	$(BIN)/headprune reproduce $(EXPERIMENT) --profile $(PROFILE) --fresh --out reproduce/results/$(PROFILE)/$(EXPERIMENT)

extend: install
	$(BIN)/headprune reproduce $(EXPERIMENT) --profile $(PROFILE) --out reproduce/results/$(PROFILE)/$(EXPERIMENT)

refresh-report: install
	$(BIN)/headprune report --out reproduce/report

# The sdist, and the wheel built from it, into dist/ (tests/test_wheel.py installs them into a fresh venv).
dist: install
	$(BIN)/python -m build --no-isolation --outdir dist .

# The library must be what the notebooks export, the notebooks must be clean, the README must be
# what nbs/index.ipynb says.
sync-check: install
	$(BIN)/nbdev-export
	$(BIN)/nbdev-clean
	@if [ -n "$$(git status --porcelain -- headprune_nb nbs)" ]; then \
	  git status --porcelain -- headprune_nb nbs; \
	  echo "headprune_nb/ or nbs/ changed under nbdev-export/nbdev-clean: edit the notebooks, run both, commit"; exit 1; fi
	$(BIN)/python tools/readme.py --check

# Two notebooks at a time, one torch thread each: two threads each would oversubscribe the two cores, and a waiting
# OpenMP thread spins (nbs/90_reproduce: 10-20x slower steps for tiny models on a busy machine)
nbtest: install
	OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/nbdev-test --n-workers 2 $(if $(filter 1,$(FAIRSEQ)),--flags fairseq)

# Two test processes (pytest-xdist), a file to each: the dry runs of tests/test_dry_run.py share one scratch folder
# and run in order in one process while the other files run in the other (tests/conftest.py: one torch thread each)
pytest: install
	$(BIN)/pytest -q -n 2 --dist loadfile --durations=15 tests

# Lines of at most 120 characters and one statement a line in the notebooks and the library ([tool.ruff])
lint: install
	$(BIN)/ruff check nbs headprune_nb

test: sync-check lint nbtest pytest

# The documentation site (Sphinx + MyST-NB, MathJax from the npm registry, no Quarto): _site/index.html.
# tests/test_docs.py builds it too, so CI checks that it builds.
docs: install
	$(BIN)/python tools/docs.py

clean:
	rm -rf $(VENV) reproduce/results/smoke headprune-results build dist *.egg-info _site
