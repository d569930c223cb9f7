# Two commands on a fresh machine: `make demo` (the main job; ARGS="--autoplay" etc.,
# docs/rig.md) and `make test`.
SHELL  := /bin/bash
.SHELLFLAGS := -o pipefail -c
# The distribution's interpreter where there is one: the one a table runs (systemd/install.sh
# makes its venv with Debian's or Pi OS's python3) and a fresh machine has, so that the tests
# run on it, not on another python3 first on the path (this VM's pyenv 3.11.7: Debian 12's
# 3.11.2 argparse behaves differently, and the same work costs ~a fifth more CPU there).
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# An editable install compiles nothing, and with PYTHONDONTWRITEBYTECODE set (as on this VM)
# every command would compile each module it imports again: ~80 ms of `croupier status` here,
# over a second of the daemon's start-up; on a Pi, several times that (docs/daemon.md).
# Run again before a demo or a benchmark: it recompiles only the files that changed.
# The editable install is in "compat" mode: one path line in a .pth file. The default mode's
# import finder cost every Python process here 27 ms (pathlib, fnmatch, re at start-up), more
# than half of a bare `python -c pass`; an installed table (pip install .) has neither.
EDITABLE = --config-settings editable_mode=compat -e
COMPILE = $(BIN)/python -m compileall -q controller drivers firmware_bridge display > /dev/null

.PHONY: demo test coverage lint typecheck venv bench manifest clean sign-docs completions install sim

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet $(EDITABLE) '.[dev]'
	$(COMPILE)
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(COMPILE)
	$(BIN)/python -m controller.rig.demo $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest $(PYTEST_ARGS)

# The suite under coverage, including the daemons, emulators and CLI runs the tests start
# (coverage's subprocess patch, pyproject.toml); the total is printed, then pytest's closing
# line again. Not part of `make test`: tracing a daemon makes its start-up ~3.5x slower, which
# the restart scenarios' start limits and the 15-minute budget of `make test` do not allow.
coverage: $(STAMP)
	rm -rf .coverage-data && mkdir -p .coverage-data
	$(BIN)/coverage run -m pytest $(PYTEST_ARGS) | tee .coverage-data/pytest.log
	$(BIN)/coverage combine -q
	$(BIN)/coverage report --format=total | sed 's/^/coverage (controller, drivers, firmware_bridge, display): /; s/$$/%/'
	@tail -n 1 .coverage-data/pytest.log

# The long adversarial run (docs/security.md): many more fuzzed requests, files and
# configurations, and longer socket floods than `make test` runs.
.PHONY: fuzz
fuzz: $(STAMP)
	CROUPIER_FUZZ=long $(BIN)/pytest -s tests/adversarial

# The deterministic simulator's long run (docs/sim.md): SIM_ROUNDS rounds of each of the five
# profiles (5 x 200,000 = 1,000,000 by default), faults and crashes on, spread over SIM_JOBS
# cores (all by default): each profile cut into SIM_JOBS runs of their own seed (SIM_SEED,
# SIM_SEED+1, ...), one `croupier sim --json` process per core. Prints each run's JSON, then
# the total rounds, CPU seconds and wall-clock time; fails when a run found a violation (its
# replay command is printed; no new run starts after it, unless SIM_KEEP_GOING=1).
SIM_ROUNDS ?= 200000
SIM_SEED ?= 1
SIM_JOBS ?= $(shell nproc)
sim: $(STAMP)
	$(COMPILE)
	$(BIN)/python -m controller.rig.sim.batch --rounds $(SIM_ROUNDS) --seed $(SIM_SEED) \
	  --jobs $(SIM_JOBS) --faults 0.2 --crash-rate 0.01 $(if $(SIM_KEEP_GOING),--keep-going)

# Every benchmark in turn (bench/_*.py are helpers the benchmarks share, not benchmarks)
bench: $(STAMP)
	$(BIN)/pip install --quiet $(EDITABLE) '.[dev,bench]'
	$(COMPILE)
	for b in bench/[!_]*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

# The software manifest the power-up self-check compares against (docs/ledger.md); run it
# after installing, as an installer does.
manifest: $(STAMP)
	$(BIN)/croupier selfcheck manifest

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .mypy_cache .coverage-data

# Pictures of every sign scene: docs/sign/ (docs/sign.md) and the golden images of the tests.
sign-docs: $(STAMP)
	$(BIN)/python -m display.gallery docs/sign
	$(BIN)/python -m display.gallery tests/sign/golden --scale-matrix 3 --scale-digits 2

# The shell completion scripts controller/cli/completions/ ships, from the parser: after
# changing a command or an option (tests/unit/cli/test_completion.py says when)
completions: $(STAMP)
	$(BIN)/python -m controller.cli.completion_cmd

# On a Raspberry Pi, as root: user, venv under /opt/croupier, config, systemd unit, udev rule
# (systemd/install.sh; PROFILE=ch-bg picks the example configuration, DESTDIR=... stages;
# TECHNICIAN=login ENABLE_SPI=1 ENABLE_UART=1 HARDWARE_WATCHDOG=1: docs/install.md).
install:
	systemd/install.sh
