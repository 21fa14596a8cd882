# Python 3.11, 3.12 or 3.13. The system's own CPython comes first: Debian
# builds it with profile-guided optimisation, which makes the pure-Python
# engine ~15% faster than a default source build (measured with
# `arena bench engine`); any other 3.11-3.13 on PATH, then pyenv's builds
# (whose shims only answer for the selected version), are the fallback.
# Override with `make PY=/path/to/python3.12 ...` (then `make clean` first).
PY_CANDIDATES := /usr/bin/python3.11 /usr/bin/python3.12 /usr/bin/python3.13 \
        python3.11 python3.12 python3.13 python3 \
        $(sort $(wildcard $(HOME)/.pyenv/versions/3.1[123]*/bin/python3))
ifeq ($(origin PY),undefined)
PY := $(shell for p in $(PY_CANDIDATES); do \
        command -v $$p >/dev/null 2>&1 && $$p -c 'import sys, venv, ensurepip; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 13))' 2>/dev/null \
        && { echo $$p; break; }; done)
endif
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PIP := $(BIN)/python -m pip --disable-pip-version-check

.PHONY: run leaderboards baselines test test-all typecheck bench clean check-python

# setuptools installs a project whose packages live in two folders (arena/, bots/sdk/cinch_bot) as an import hook:
# its .pth file imports pathlib, urllib and more at every start of the venv's interpreter, 18 ms of CPU each
# (34 ms against 16 for `python -c pass`), paid again by every `{python}` bot and `arena` process a test starts
# (thousands in a `make test`). The same two folders as plain path lines import the same files, as editable as before.
PLAIN_PTH := import glob, sys, sysconfig; \
        [open(p, "w").write(sys.argv[1] + chr(10) + sys.argv[1] + "/bots/sdk" + chr(10)) \
         for p in glob.glob(sysconfig.get_paths()["purelib"] + "/__editable__.cinch_arena-*.pth")]

# First use only: one line says what is happening, pip's own output goes to
# a log that is shown only if the install fails. A changed solver core (the one
# compiled module, setup.py) installs again, which rebuilds it.
$(STAMP): pyproject.toml setup.py bots/sdk/cinch_bot/_solver.c
	@$(MAKE) --no-print-directory -s check-python PY="$(PY)" >/dev/null
	@echo "make: first run: installing cinch-arena and its dependencies (pydantic, ray, pytest, ...) into $(VENV) with $$($(PY) -c 'import sys; print(sys.executable, sys.version.split()[0])'); this downloads and builds packages and takes about a minute (log: $(VENV)/install.log)"
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@{ $(PIP) install -q --upgrade pip && $(PIP) install -q -e '.[test]'; } >$(VENV)/install.log 2>&1 \
	  || { tail -n 30 $(VENV)/install.log >&2; echo "make: install failed; full log in $(VENV)/install.log" >&2; exit 1; }
	@$(BIN)/python -c '$(PLAIN_PTH)' "$(CURDIR)"
	@touch $(STAMP)

# Which interpreter a new .venv would use, or why there is none.
check-python:
	@test -n "$(PY)" || { echo "make: no Python 3.11, 3.12 or 3.13 found; install one or pass PY=/path/to/python3.x" >&2; exit 1; }
	@$(PY) -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 13))' 2>/dev/null \
	  || { echo "make: $(PY) is not Python 3.11-3.13; pass PY=/path/to/python3.x" >&2; exit 1; }
	@echo "make: Python $$($(PY) -c 'import sys; print(sys.version.split()[0], "at", sys.executable)')"

# The quickstart writes only under runs/ (gitignored): runs/quickstart, its leaderboard in runs/quickstart/leaderboard.
run: $(STAMP)
	$(BIN)/arena run configs/quickstart.yaml

# The committed example, leaderboards/quickstart/: the quickstart played afresh in its own folder (a
# folder of an earlier run would hold other bot versions) and rated into the committed files.
# tests/test_leaderboards.py checks the copy is current (digests, config) and, slow, that this remakes it.
QUICKSTART_FRESH := runs/leaderboards/quickstart
leaderboards: $(STAMP)
	rm -rf $(QUICKSTART_FRESH)
	$(BIN)/arena run configs/quickstart.yaml --quiet --out $(QUICKSTART_FRESH) --leaderboard leaderboards/quickstart

# The committed baseline ladder, leaderboards/baselines/ (random < heuristic < montecarlo < pimc):
# configs/baselines.yaml played afresh and rated into the committed files, as above. About half an
# hour on 2 cores; tests/test_leaderboards.py checks the copy names the current bots and config.
BASELINES_FRESH := runs/leaderboards/baselines
baselines: $(STAMP)
	rm -rf $(BASELINES_FRESH)
	$(BIN)/arena run configs/baselines.yaml --quiet --out $(BASELINES_FRESH) --leaderboard leaderboards/baselines

# The default suite on the machine's cores (pytest-xdist; at most four workers, since each
# starts its own Ray and Chromium). `test-all` (and CI's slow checks) the same way: every test is
# written to pass beside others on a busy machine.
# Compiled modules are cached (an inherited PYTHONDONTWRITEBYTECODE is cleared): without the cache every
# worker compiled the whole harness and rewrote every test module's asserts at each run (about 7 s of CPU a
# worker), and every `arena` or Ray process a test starts compiled what it imports again. Bots never write
# one (the harness starts them with PYTHONDONTWRITEBYTECODE=1), and __pycache__ is gitignored.
XDIST := -n auto --maxprocesses 4 --dist worksteal
test: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest $(XDIST)

test-all: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -m '' $(XDIST)

typecheck: $(STAMP)
	@$(PIP) install -q 'mypy>=1.10' >>$(VENV)/install.log 2>&1 \
	  || { tail -n 30 $(VENV)/install.log >&2; echo "make: installing mypy failed; log in $(VENV)/install.log" >&2; exit 1; }
	$(BIN)/python -m mypy --strict arena

bench: $(STAMP)
	$(BIN)/arena bench engine

clean:
	rm -rf $(VENV)
