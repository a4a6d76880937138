# The two commands: `make book` builds the HTML book, `make test` runs every test.
# Each creates .venv and installs what it needs on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JOBS   ?= 2

.PHONY: book pdf test check-full lint bench studies gpu-check glue-reference clean

$(STAMP): requirements.txt requirements-dev.txt requirements-studies.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

book: $(STAMP)                     ## build _build/html, executing every chapter (cached)
	@# the execution cache keys on notebook code only: drop it when the library or the
	@# tables the chapters read (a study's CSV, bench.jsonl, a machine record) changed
	@if [ -f _build/.src-stamp ] && [ -n "$$(find src book/data \( -name '*.py' -o -name '*.csv' \
	    -o -name '*.jsonl' -o -name '*.json' \) -newer _build/.src-stamp)" ]; then \
	    echo "src/ or book/data changed: re-executing every chapter"; \
	    rm -rf _build/.jupyter_cache _build/.doctrees; fi
	@# Sphinx copies book/_extra (the page's scripts and styles) only when a page is
	@# rebuilt: one changed, so rebuild the pages (from the cache, without executing)
	@if [ -f _build/.src-stamp ] && [ -n "$$(find book/_extra -type f -newer _build/.src-stamp \
	    -not -path '*/_static/models/*')" ]; then rm -rf _build/.doctrees; fi
	@# the chapters write their trained models for the page as they run: none, run them
	@if [ ! -d book/_extra/_static/models ]; then rm -rf _build/.jupyter_cache _build/.doctrees; fi
	@# the page has no kernel: the explorers show their text fields read-only.
	@# The chapters run $(JOBS) at a time into the execution cache (one torch thread
	@# each), then the build reads them from it.
	RECUR_STATIC_PAGE=1 OMP_NUM_THREADS=1 $(PY) book/_ext/execute.py --jobs $(JOBS)
	RECUR_STATIC_PAGE=1 $(VENV)/bin/jupyter-book build . -W --keep-going
	$(PY) book/_ext/make_pdf.py
	@touch _build/.src-stamp

pdf: $(STAMP)                      ## the whole book as one PDF (after make book)
	$(PY) book/_ext/make_pdf.py

AXE := $(VENV)/npm/node_modules/axe-core/axe.min.js
$(AXE):                            # the browser tests' accessibility check (WCAG 2 A, AA)
	@if command -v npm >/dev/null; then \
	    npm install --prefix $(VENV)/npm axe-core@4.14.1 --no-audit --no-fund --silent; \
	else echo "npm not found: the accessibility check will be skipped (fails in CI)"; fi

test: book lint $(AXE)             ## unit + property + notebook (nbval) + browser tests
	@# two test workers share the cores: one torch thread each, or they fight for them
	OMP_NUM_THREADS=1 $(PY) -m pytest tests book -n $(JOBS) --dist loadfile \
	    --nbval-lax --nbval-sanitize-with tests/sanitize.cfg --durations=25

check-full: book $(AXE)            ## the browser twins against the library on 200 sums a width
	RECUR_BROWSER_FULL=1 OMP_NUM_THREADS=1 $(PY) -m pytest tests/test_browser_models.py -s

ESLINT := $(VENV)/npm/node_modules/.bin/eslint
$(ESLINT):                         # the page's JavaScript, linted by eslint.config.mjs
	@if command -v npm >/dev/null; then \
	    npm install --prefix $(VENV)/npm eslint@9.39.5 @eslint/js@9.39.5 globals@16.3.0 \
	        --no-audit --no-fund --silent; \
	else echo "npm not found: the page's JavaScript will not be linted"; fi

lint: $(STAMP) $(ESLINT)           ## ruff (rules and format) and eslint (the page's scripts)
	$(VENV)/bin/ruff check src tests benchmarks book
	$(VENV)/bin/ruff format --check src tests benchmarks book
	@if [ -x $(ESLINT) ]; then $(ESLINT) book/_extra/_static; \
	else echo "no eslint (npm not found): the page's JavaScript is not linted"; fi

bench: $(STAMP)                    ## the performance table: printed, and book/data/bench.jsonl
	$(PY) benchmarks/run.py

# On a GPU machine: every chapter and the unit tests on CUDA -> book/data/gpu_check.jsonl.
# It needs torch, nbclient, ipykernel and ipywidgets, not the book tools: GPU_PYTHON is
# whatever Python has them there (no .venv is made). Then, here: make glue-reference
# after make book, and `benchmarks/gpu_check.py --recompare` to set the CPU values beside.
GPU_PYTHON ?= python3
gpu-check:
	PYTHONPATH=src$${PYTHONPATH:+:$$PYTHONPATH} $(GPU_PYTHON) benchmarks/gpu_check.py --jobs 2

glue-reference: book               ## the CPU build's glued values: book/data/glue_cpu.json
	$(PY) benchmarks/gpu_check.py --reference

# The studies run on a Dask cluster: a local one of JOBS workers, or the scheduler at
# SCHEDULER (make studies SCHEDULER=tcp://HOST:8786), passed on as RECUR_SCHEDULER.
SCHEDULER ?=
ifneq ($(SCHEDULER),)
export RECUR_SCHEDULER := $(SCHEDULER)
endif
studies: $(STAMP)                  ## the slow studies: book/data/act_*, ch7_*, live_*, browser_*, skeptic_*
	$(PY) benchmarks/act_studies.py --jobs $(JOBS)
	$(PY) benchmarks/ch7_studies.py --jobs $(JOBS)
	$(PY) benchmarks/live_studies.py --jobs $(JOBS)
	$(PY) benchmarks/live_studies.py --jobs $(JOBS) --first-100
	$(PY) benchmarks/browser_train.py --jobs 2 --seeds 0-19
	$(PY) benchmarks/browser_train.py --jobs 2
	$(PY) benchmarks/browser_train.py --jobs 2 --holding
	$(PY) benchmarks/browser_act_train.py --workers 2
	$(PY) benchmarks/skeptic_studies.py --choose --jobs $(JOBS)
	$(PY) benchmarks/skeptic_studies.py --jobs $(JOBS)
	$(PY) benchmarks/skeptic_studies.py --wide --jobs $(JOBS)

clean:
	rm -rf _build
