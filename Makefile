# The README's commands: `make run` (the main job) and `make test` (the suite).
# Both create .venv on first use and reinstall only when the build inputs change.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
BUILD_INPUTS := pyproject.toml setup.py $(shell find engine_core -name '*.pyx' -o -name '*.pxd' 2>/dev/null)

BUF := npx --yes @bufbuild/buf@1.75.0

.PHONY: run test lint protos bench clean web web-generate web-check screenshots

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# An editable install compiles the Cython cores in place, so tests and the
# CLI import the compiled extension straight from the source tree.
$(VENV)/.stamp-install: $(BIN)/python $(BUILD_INPUTS)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# The main job: every service on one port (gRPC 50051, metrics 9464) until Ctrl-C.
run: $(VENV)/.stamp-install
	$(BIN)/meeple up

# pytest exits 5 when it collected no tests (make would turn that into its own
# exit 2): say so loudly and pass, so a filtered run is not mistaken for a crash.
test: $(VENV)/.stamp-install
	@$(BIN)/python -m pytest $(PYTEST_ARGS); status=$$?; \
	if [ $$status -eq 5 ]; then echo "WARNING: pytest collected no tests" >&2; exit 0; fi; \
	exit $$status

lint: $(VENV)/.stamp-install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	cd protos && $(BUF) lint
	cd protos && $(BUF) breaking --against v1-frozen.json  # v1 only grows
	$(MAKE) --no-print-directory web-check

# Regenerates the Python code beside the .proto files (commit the result; a
# test fails when it drifts).
protos: $(VENV)/.stamp-install
	$(BIN)/python -m grpc_tools.protoc -I protos --python_out=protos --pyi_out=protos \
		--grpc_python_out=protos --plugin=protoc-gen-mypy_grpc=$(BIN)/protoc-gen-mypy_grpc \
		--mypy_grpc_out=protos protos/meeple/v1/*.proto

# The web page (web/, see its README section): npm packages at the exact
# versions of web/package-lock.json, TypeScript clients generated from protos/
# into web/src/gen/ (not committed), a type check, then one esbuild bundle
# into services/web/static/, which is committed so that a machine without
# Node serves the page.
web/node_modules/.stamp: web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	touch $@

web-generate: web/node_modules/.stamp
	cd web && $(BUF) generate
	cd web && node_modules/.bin/tsc -p .

web: web-generate
	cd web && node build.mjs

# Fails when the committed page differs from a fresh build of web/ and protos/.
web-check: web-generate
	@out=$$(mktemp -d) && (cd web && node build.mjs $$out) && \
	if diff -r $$out services/web/static >/dev/null; then rm -r $$out; echo "web: services/web/static/ matches its sources"; \
	else diff -r --brief $$out services/web/static; rm -r $$out; \
	echo "web: services/web/static/ is stale: run make web and commit it" >&2; exit 1; fi

# The README's screenshots, made by the browser tests (needs chromium).
screenshots: $(VENV)/.stamp-install
	MEEPLE_SCREENSHOTS=docs/screenshots MEEPLE_REQUIRE_BROWSER=1 $(BIN)/python -m pytest tests/web -q

$(VENV)/.stamp-bench: $(VENV)/.stamp-install
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $@

bench: $(VENV)/.stamp-bench
	@for script in benchmarks/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf build $(VENV) *.egg-info
	find engine_core -name '*.so' -delete
