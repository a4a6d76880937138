# The two commands: `make book` builds the HTML book, `make test` runs every test.
# Each creates .venv and installs what it needs on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JOBS   ?= 2

.PHONY: book test lint unit nbval browser bench studies clean

$(STAMP): requirements.txt requirements-dev.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

book: $(STAMP)                     ## build _build/html, executing every chapter (cached)
	@# the execution cache keys on notebook code only: drop it when the library changed
	@if [ -f _build/.src-stamp ] && [ -n "$$(find src -name '*.py' -newer _build/.src-stamp)" ]; \
	    then echo "src/ changed: re-executing every chapter"; rm -rf _build/.jupyter_cache _build/.doctrees; fi
	$(VENV)/bin/jupyter-book build . -W --keep-going
	@touch _build/.src-stamp

test: book lint                    ## unit + property + notebook (nbval) + browser tests
	@# two test workers share the cores: one torch thread each, or they fight for them
	OMP_NUM_THREADS=1 $(PY) -m pytest tests book -n $(JOBS) --dist loadfile \
	    --nbval-lax --nbval-sanitize-with tests/sanitize.cfg

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks book

bench: $(STAMP)                    ## the performance table: printed, and book/data/bench.jsonl
	$(PY) benchmarks/run.py

studies: $(STAMP)                  ## rerun the slow studies: book/data/act_*.csv, ch7_*.csv
	$(PY) benchmarks/act_studies.py
	$(PY) benchmarks/ch7_studies.py

clean:
	rm -rf _build
