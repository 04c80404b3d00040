# Two commands on a fresh machine: `make run` and `make test` (see README).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | md5sum | cut -c1-8)
CHROMIUM := var/chromium-path
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint venv fuzz faults chaos

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	rm -f $(VENV)/.installed-* && touch $(STAMP)

# The Chromium of the browser worker and the tests: PLAYWRIGHT_CHROMIUM_PATH, a system Chromium, the
# distribution's package (apt-get as root or with passwordless sudo), else Playwright's own download;
# the path is recorded in var/chromium-path, which workers/settings.py reads (workers/chromium.py).
$(CHROMIUM): $(STAMP)
	$(PY) -m workers.chromium

venv: $(STAMP) $(CHROMIUM)

# Procfile.dev through honcho: web + Celery worker (all queues) + beat + the demo site, on the embedded
# default (SQLite + filesystem broker) unless DATABASE_URL / CELERY_BROKER_URL are set. honcho prefixes
# each log line with the process name and stops every process (its whole process group) on Ctrl-C,
# SIGTERM or when any one of them exits; config/procfile_run.py makes a requested stop end with «Stopped.» and
# status 0 (no make "Error 130"), while a process that died on its own still fails the run.
run: $(STAMP) $(CHROMIUM)
	DEBUG=$${DEBUG:-1} $(PY) manage.py migrate --noinput
	DEBUG=$${DEBUG:-1} $(PY) manage.py demo_data
	@echo "Platform: http://$(HOST):$(PORT)/  (admin: http://$(HOST):$(PORT)/admin/, API docs: /api/docs/) — Ctrl-C stops everything"
	@DEBUG=$${DEBUG:-1} WEB_ADDR=$(HOST):$(PORT) PYTHONUNBUFFERED=1 PATH="$(CURDIR)/$(VENV)/bin:$$PATH" \
	exec $(PY) -m config.procfile_run start --procfile Procfile.dev --app-root $(CURDIR)

test: $(STAMP) $(CHROMIUM)
	$(VENV)/bin/pytest $(PYTEST_ARGS)

# Longer fuzzing of the whole OpenAPI schema (tests/platform/test_fuzz.py; CI runs 3 examples per operation).
FUZZ_EXAMPLES ?= 25
fuzz: $(STAMP)
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) FUZZ_COVERAGE=1 FUZZ_STATS=var/fuzz-stats.json \
	$(VENV)/bin/pytest tests/platform/test_fuzz.py -q --timeout=3600 $(PYTEST_ARGS)

# Fault injection with real processes (docs/reliability.md): the engine-worker SIGKILL scenario for
# FAULT_TRIALS kills per pool (CI runs 4 in tests/sms/test_kill_worker.py), then the other fault tests
# (tests/platform/faults: browser worker killed, Redis and PostgreSQL restarted, double delivery, two
# ticks). Prints the counts per scenario and appends them to var/fault-stats.jsonl; fails on any
# resend, duplicate or lost message. Needs PostgreSQL (DATABASE_URL) and Redis (CELERY_BROKER_URL).
FAULT_TRIALS ?= 200
FAULT_POOL ?= prefork,solo
FAULT_WORKERS ?= 3
faults: $(STAMP)
	mkdir -p var
	FAULT_TRIALS=$(FAULT_TRIALS) FAULT_POOL=$(FAULT_POOL) FAULT_WORKERS=$(FAULT_WORKERS) FAULT_STATS=var/fault-stats.jsonl \
	$(VENV)/bin/pytest tests/sms/test_kill_worker.py tests/platform/faults tests/workers/test_fault_browser_kill.py -q -s --timeout=7200 $(PYTEST_ARGS)

# The chaos run (docs/reliability.md): a private PostgreSQL cluster and Redis, gunicorn, two engine workers,
# a browser worker and beat, a fake SMS provider with a bad day, a busy workspace's workload and seeded
# random faults for CHAOS_MINUTES, then the checks: one summary line, exit 1 with the seed if a promise broke.
# CHAOS_SEED replays a run. Starts and stops only its own processes (needs initdb/pg_ctl and redis-server).
CHAOS_MINUTES ?= 30
CHAOS_SEED ?=
chaos: $(STAMP)
	CHAOS_MINUTES=$(CHAOS_MINUTES) CHAOS_SEED=$(CHAOS_SEED) PYTHONUNBUFFERED=1 $(PY) -m tests.platform.chaos $(CHAOS_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache
