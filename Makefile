# plagd — `make help` lists the targets.
#
# The two commands of the README:
#   make up     local PostgreSQL in ./.data, migrate, ingest samples/, one run, serve
#   make test   vet + all tests (the Go harness starts its own throwaway PostgreSQL)

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO          ?= go
BIN         := bin/plagd
LAB_BIN     := bin/plagd-lab
CONFIG      ?= configs/plagd.yaml
HTTP_LISTEN ?= 127.0.0.1:8080
# what `make up` ingests: folders are walked for document files (*.txt, ...);
# the PAN truth files (*.xml) and README.md of the sample corpus are not picked up
SAMPLES     ?= samples/pan-id/source-documents samples/pan-id/suspicious-documents
TEST_TIMEOUT ?= 30m
FUZZTIME    ?= 30s
IMAGE       ?= plagd:dev
GOFLAGS_BUILD ?= -trimpath

PLAGD := $(BIN) --config $(CONFIG)

.PHONY: help build up down test test-short bench fuzz lint docker clean screenshots

help: ## list the targets
	@echo "plagd make targets:"
	@grep -E '^[a-z][a-z-]*:.*## ' $(MAKEFILE_LIST) | \
	  awk 'BEGIN {FS = ":.*## "} {printf "  %-11s %s\n", $$1, $$2}'
	@echo "variables: CONFIG=$(CONFIG) HTTP_LISTEN=$(HTTP_LISTEN) TEST_TIMEOUT=$(TEST_TIMEOUT) FUZZTIME=$(FUZZTIME) IMAGE=$(IMAGE)"

build: ## build bin/plagd (the product) and bin/plagd-lab (bench, gen, extract-eval)
	$(GO) build $(GOFLAGS_BUILD) -o $(BIN) ./cmd/plagd
	$(GO) build $(GOFLAGS_BUILD) -o $(LAB_BIN) ./cmd/plagd-lab

up: build ## local PostgreSQL (./.data), migrate, ingest samples/, run once, serve on http://127.0.0.1:8080
	@url=$$(scripts/localpg.sh start); \
	export PLAGD_DATABASE_URL="$$url"; \
	echo "DATABASE_URL=$$url"; \
	echo "== plagd migrate"; $(PLAGD) migrate; \
	fresh=0; if [ ! -s .data/admin-password ]; then fresh=1; \
	  (umask 077; head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 16 > .data/admin-password); fi; \
	added=$$($(PLAGD) user add admin --role admin --password-stdin --if-missing < .data/admin-password); echo "$$added"; \
	if [ $$fresh = 1 ] && ! echo "$$added" | grep -q '^added'; then \
	  $(PLAGD) user reset admin --password-stdin < .data/admin-password; fi; \
	echo "== plagd ingest $(SAMPLES)"; $(PLAGD) ingest $(SAMPLES); \
	echo "== plagd run"; $(PLAGD) run; \
	echo; \
	echo "open http://$(HTTP_LISTEN) and sign in as admin with the password in .data/admin-password: $$(cat .data/admin-password)"; \
	echo "(more accounts, in another shell: export PLAGD_DATABASE_URL='$$url'; bin/plagd user add NAME --role teacher|staff|admin)"; \
	echo "(Ctrl-C stops plagd; 'make down' stops PostgreSQL; 'scripts/localpg.sh psql' opens a SQL prompt)"; \
	echo; \
	PLAGD_HTTP_LISTEN="$(HTTP_LISTEN)" exec $(PLAGD) serve

down: ## stop the local PostgreSQL (its data stays in ./.data)
	scripts/localpg.sh stop

test: ## go vet, then every test (unit, property, integration) against a throwaway PostgreSQL
	@pgbin=$$(scripts/ensure-postgres.sh); \
	echo "PostgreSQL server binaries: $$pgbin"; \
	echo "== go vet ./..."; $(GO) vet ./... || exit 1; \
	echo "== go test ./..."; \
	rc=0; PATH="$$pgbin:$$PATH" $(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./... || rc=$$?; \
	if [ -z "$${PLAGD_BROWSER:-}" ] && ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null \
	  && ! command -v google-chrome >/dev/null && ! command -v google-chrome-stable >/dev/null; then \
	  echo "NOTE: no Chromium found: the browser tests of web/ were SKIPPED (apt-get install chromium, or set PLAGD_BROWSER=PATH)"; \
	else echo "browser tests ran (Chromium found)"; fi; \
	exit $$rc

test-short: ## quick tests (go test -short); database tests are skipped when PostgreSQL is not installed
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; else \
	  echo "no PostgreSQL server binaries: skipping database tests (PLAGD_TEST_SKIP_DB=1)"; \
	  export PLAGD_TEST_SKIP_DB=1; fi; \
	$(GO) test -short -count=1 -timeout 10m ./...

bench: build ## Go benchmarks of invindex and passage, then plagd-lab bench against the local PostgreSQL (database plagd_bench)
	$(GO) test -run '^$$' -bench . -benchmem ./invindex/ ./passage/
	@url=$$(scripts/localpg.sh start); \
	scripts/localpg.sh psql -qtAX -c "select 1 from pg_database where datname = 'plagd_bench'" | grep -q 1 || \
	  scripts/localpg.sh psql -qX -c "create database plagd_bench"; \
	export PLAGD_DATABASE_URL="$${url/\/plagd\?//plagd_bench?}"; \
	$(BIN) migrate && \
	echo "== plagd-lab bench (PLAGD_DATABASE_URL=$$PLAGD_DATABASE_URL)" && \
	$(LAB_BIN) bench $(BENCH_ARGS)

fuzz: ## fuzz the tokenizer (FuzzTokenize) for FUZZTIME
	$(GO) test -run '^$$' -fuzz '^FuzzTokenize$$' -fuzztime $(FUZZTIME) ./invindex/

lint: ## gofmt check and go vet
	@out=$$(gofmt -l .); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

docker: ## build the container image (IMAGE=plagd:dev); needs a Docker engine
	docker build -t $(IMAGE) .

screenshots: ## regenerate docs/screenshots/ with the browser test (needs chromium)
	@pgbin=$$(scripts/ensure-postgres.sh); \
	mkdir -p docs/screenshots; \
	PLAGD_SCREENSHOTS="$(CURDIR)/docs/screenshots" PLAGD_REQUIRE_BROWSER=1 PATH="$$pgbin:$$PATH" \
	  $(GO) test -count=1 -run 'Browser|TestReportPDF$$' -v ./web/

clean: ## remove bin/ (the local database in ./.data is kept: 'make down && rm -rf .data' removes it)
	rm -rf bin
