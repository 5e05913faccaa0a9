# Two commands do everything on a fresh machine:
#   make demo   set up, simulate three source databases, run the pipeline, print and check gold
#   make test   set up, lint, and run every test
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.lock pyproject.toml | md5sum | cut -c1-12)
BYTECODE := $(VENV)/.bytecode-$(shell cat requirements.lock pyproject.toml | md5sum | cut -c1-12)

export DBT_PROFILES_DIR := $(CURDIR)/profiles
export SPARK_LOCAL_IP := 127.0.0.1
# the package's tooling (cdc_tools) at the root, the test rig (workbench) beside the consumer
export PYTHONPATH := $(CURDIR):$(CURDIR)/integration_tests
# dbt (and the project's tools) run on the consumer project, which installs the package at
# the root as a user's project does: `dbt build` here builds the examples too
export DBT_PROJECT_DIR := $(CURDIR)/integration_tests
CONSUMER := integration_tests
export CDC_LOG4J_CONFIG ?= $(CURDIR)/profiles/log4j2.properties
# the pinned Spark packages (spark-jars.lock), fetched by `make setup` with Maven
export CDC_SPARK_JARS_DIR ?= $(CURDIR)/jars

.PHONY: venv setup check-java demo demo-postgres report test lint unit bench docs docs-serve quality clean lock cluster-up cluster-down spark-server-up spark-up spark-down

venv: check-java $(STAMP) $(BYTECODE)
	@mkdir -p landing
	@# this repository's own tooling: a .pth file in the venv installs the session hook
	@# (cdc_tools/session_hook.py: warehouse lock, landing UDFs, Connect cursor) with the local
	@# speed-ups of its sessions (integration_tests/workbench/speedups); a user's project needs none of it
	@$(PY) -m workbench.speedups >/dev/null
	@# the consumer project's package: a local one, installed as a link (no network)
	@cd $(CONSUMER) && ../$(VENV)/bin/dbt deps --quiet --profiles-dir ../profiles

setup: venv
	@# once: the pinned Spark packages (Delta, Iceberg, Kafka) with Maven, checksums checked;
	@# without Maven it says what to install, and the parquet default still works
	@$(PY) -m cdc_tools.spark_jars
	@# once: the Debezium capture of capture/ (Debezium's embedded engine, pinned versions),
	@# compiled with Maven into capture/target/ for the tests on real databases (tests/realdb/)
	@$(PY) -m workbench.realdb.capture --build
	@# once: the classes a Spark driver loads, archived for every later session to map
	@# (integration_tests/workbench/speedups/jvm_class_archive.py), after the driver's local file system
	@# (integration_tests/workbench/speedups/local_filesystem.py: no chmod process per file)
	@$(PY) -m workbench.speedups.build

check-java:
	@v=$$(java -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/'); \
	if [ -z "$$v" ] || [ "$$v" -lt 17 ] 2>/dev/null; then \
	  echo "Java 17 or newer is required by Spark 4 (found: '$$v')."; \
	  echo "Install it with: sudo apt-get install -y openjdk-17-jdk-headless (Debian/Ubuntu),"; \
	  echo "brew install openjdk@17 (macOS), or any JDK 17+ on PATH / JAVA_HOME."; \
	  exit 1; \
	fi

$(STAMP): requirements.lock pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) not found: Python 3.10-3.12 is required"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	@# the lock pins every package (pip freeze), so nothing is resolved; no .pyc written at
	@# install: Python compiles what it imports, when it does (42 s -> 21 s here)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-compile -r requirements.lock
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

# once per install: the .pyc of what a dbt invocation imports. Python writes them itself on
# first import, but not under PYTHONDONTWRITEBYTECODE (set on many machines and images),
# and every dbt start then compiled about 1,300 modules again: 1-3 s of CPU (decision 0021)
$(BYTECODE): $(STAMP)
	@$(PY) -m workbench.speedups.bytecode
	@rm -f $(VENV)/.bytecode-*
	@touch $(BYTECODE)

demo: setup
	$(PY) -m workbench.demo

# the run history of the embedded warehouse (make demo's, or your builds') as a page of plots
report: setup
	$(PY) -m cdc_tools.run_report

# a throwaway PostgreSQL, a short workload captured by real Debezium, gold checked against it
demo-postgres: setup
	$(PY) -m workbench.realdb.demo

# models render as on a fresh clone whatever the warehouse and landing folder hold: a schema
# never built (each model's first-build branch) and an empty landing folder
LINT_LANDING := $(CURDIR)/.spark/lint-landing
LINT_ENV := CDC_SCHEMA=cdc_lint_unbuilt CDC_LANDING_DIR=$(LINT_LANDING)

lint: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	@mkdir -p $(LINT_LANDING) && rm -rf $(LINT_LANDING)/*
	$(LINT_ENV) $(PY) -m sqlfluff lint --processes 2 models macros tests/dbt
	cd $(CONSUMER) && $(LINT_ENV) ../$(PY) -m sqlfluff lint --processes 2 models macros
	@# every YAML file git knows of or would add (not ignored ones) parses: pre-commit-hooks'
	@# check-yaml, the pre-commit hook's command
	set -o pipefail; git ls-files -z --cached --others --exclude-standard -- '*.yml' '*.yaml' \
	  | xargs -0 $(PY) -m pre_commit_hooks.check_yaml --allow-multiple-documents

# two pytest workers (pytest-xdist), each with its own Spark session and metastore; a test
# module runs whole on one worker (its module fixtures build once), and so do the modules
# of the shared stream (tests/e2e/stream.py, one scope); TEST_WORKERS=0: one process
TEST_WORKERS ?= 2
test:
	@# the JVM class archive (setup, once: 47 s on CI's machine) is written while lint runs
	@$(MAKE) --no-print-directory -j 2 setup lint
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

unit: setup
	$(PY) -m pytest tests/unit

bench: setup
	$(PY) -m workbench.bench $(BENCH_ARGS)

quality: setup
	$(PY) -m cdc_tools.quality

# dbt docs generate; before the first build it says so and writes the docs without types
docs: setup
	$(PY) -m cdc_tools.docs

docs-serve: docs
	$(VENV)/bin/dbt docs serve --host 127.0.0.1 --port 8080

# a Spark standalone cluster on 127.0.0.1 for the `thrift` target (docs/operations.md, "Running on a Spark cluster")
cluster-up: setup
	$(PY) -m workbench.servers.cluster up

# one long-lived local Spark for dbt's `connect` target: a Spark Connect server on 127.0.0.1:15002
# with the `local` target's settings and warehouse (docs/operations.md, "A long-lived local Spark");
# SPARK_TARGET=delta or iceberg: that target's settings; stopped by make spark-down
SPARK_TARGET ?= local
spark-up: setup
	$(PY) -m workbench.servers.connect_server up --target $(SPARK_TARGET)

spark-down:
	@if [ -x $(PY) ]; then $(PY) -m workbench.servers.connect_server down; fi

# one long-lived Spark (the Thrift Server alone on local[2], one JVM, and its metastore service) for the `thrift`
# target: dbt commands run again and again skip the JVM's start and warm-up
# (docs/operations.md, "A long-lived local Spark"); stopped by make cluster-down
spark-server-up: setup
	$(PY) -m workbench.servers.cluster up --local

cluster-down:
	@if [ -x $(PY) ]; then $(PY) -m workbench.servers.cluster down; fi

clean: cluster-down spark-down
	rm -rf target logs .spark .cluster landing results
	rm -rf $(CONSUMER)/target $(CONSUMER)/logs $(CONSUMER)/.spark $(CONSUMER)/dbt_packages

lock:
	$(PY) -m pip freeze --exclude-editable | sed '/^-e /d' > requirements.lock.new
	{ head -2 requirements.lock; cat requirements.lock.new; } > requirements.lock.tmp
	mv requirements.lock.tmp requirements.lock; rm -f requirements.lock.new
