# Two commands on a fresh machine: `make run` and `make test` (see README).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | md5sum | cut -c1-8)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint venv

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	rm -f $(VENV)/.installed-* && touch $(STAMP)

venv: $(STAMP)

# Web + Celery worker (all queues) + beat on the embedded default (SQLite +
# filesystem broker) unless DATABASE_URL / CELERY_BROKER_URL are set.
run: $(STAMP)
	DEBUG=$${DEBUG:-1} $(PY) manage.py migrate --noinput
	DEBUG=$${DEBUG:-1} $(PY) manage.py demo_data
	@echo "Platform: http://$(HOST):$(PORT)/  (admin: http://$(HOST):$(PORT)/admin/, API docs: /api/docs/) — Ctrl-C stops everything"
	@trap 'kill 0' INT TERM EXIT; \
	DEBUG=$${DEBUG:-1} $(VENV)/bin/celery -A config worker -B --pool=solo -Q default,engine,sms,browser --loglevel=INFO & \
	$(PY) manage.py demo_site & \
	DEBUG=$${DEBUG:-1} $(PY) manage.py runserver --noreload $(HOST):$(PORT)

test: $(STAMP)
	$(VENV)/bin/pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache
