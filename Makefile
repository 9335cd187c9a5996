# StreamOps — build, test and run. `make help` lists the targets.

GO        ?= go
FUNCTIONS := webhook api workflow-processor task-processor outbox-relay retry-sweeper archiver kafka-topics
BUILD_DIR ?= build
# Benchmarks run a fixed number of iterations so one run compares a result
# with its baseline on equal terms; raise them for steadier numbers.
# MONGO_BENCHTIME is for the MongoDB at MONGODB_URI, whose event inserts
# are an order slower (docs/performance.md); QUICK_BENCHTIME for the
# benchmarks that never touch the store (produce, start to ready), which
# need many short iterations on a busy machine.
BENCHTIME         ?= 3x
MONGO_BENCHTIME   ?= 2x
QUICK_BENCHTIME   ?= 100x
# The replay at scale make bench runs on MONGODB_URI (docs/performance.md's
# figure; about 10 minutes on FerretDB here); 0 leaves it out.
BENCH_SCALE_EVENTS ?= 100000
# The events of the filled store of the webhook latency row
# (internal/loadprobe BenchmarkWebhookLatency; docs/performance.md). On
# today's embedded engine a fill of 200,000 takes hours: lower it to try.
BENCH_LATENCY_EVENTS ?= 200000
# The capacity model's constants file, which make bench rewrites from its
# run (benchtable -constants): make capacity then regenerates
# docs/capacity.md from it (docs/performance.md, "The capacity model").
BENCH_CONSTANTS ?= docs/capacity/constants.json
# The Lambda build of seed/DESIGN: arm64, provided.al2023, no RPC shim.
LAMBDA_ENV   := GOOS=linux GOARCH=arm64 CGO_ENABLED=0
LAMBDA_FLAGS := -tags lambda.norpc -trimpath -ldflags='-s -w'

.PHONY: help build test preflight unit race lint docs capacity bench bench-all run soak clean synth deploy bootstrap infra-test infra-clean test-mongo test-scale fuzz openapi-lint console console-check test-console history

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-8s %s\n", $$1, $$2}'

build: $(FUNCTIONS:%=$(BUILD_DIR)/%.zip) ## arm64 bootstrap + zip per Lambda under build/

$(BUILD_DIR)/%.zip: FORCE
	@mkdir -p $(BUILD_DIR)/$*
	$(LAMBDA_ENV) $(GO) build $(LAMBDA_FLAGS) -o $(BUILD_DIR)/$*/bootstrap ./functions/$*
	$(GO) tool build-lambda-zip -o $@ $(BUILD_DIR)/$*/bootstrap >/dev/null

FORCE:

# preflight runs first (make builds prerequisites left to right): on a
# machine that lacks Node.js, npm or Chromium, make test installs them with
# apt-get when run as root and otherwise stops at once, naming the command,
# rather than failing in the browser tests many minutes later.
test: preflight lint openapi-lint unit race fuzz build infra-test test-console ## everything CI runs: lint, the OpenAPI lint, all tests, the race run, a short fuzz of each target, the Lambda build, the template tests, the console in a browser

preflight: ## check (as root: apt-get install) what make test needs beyond Go: Node.js 20.19+, npm, chromium
	@.ci/preflight go node npm chromium

# The embedded engine holds its data in memory as Go values, which makes the
# large-volume tests allocation-bound: a lazier GC shortens them.
# The patched lungo under third_party/lungo is a module of its own, outside
# ./...: its tests that need no MongoDB server (third_party/lungo/PATCHES.md)
# run here too.
unit: ## go test ./... (store suite on the embedded engine, bus suite on kfake) and the patched lungo's own tests
	GOGC=400 $(GO) test -count=1 -timeout 20m ./...
	cd third_party/lungo && $(GO) test -count=1 ./bsonkit ./plancheck

race: ## the race detector over everything but the large-volume tests (-short)
	$(GO) test -count=1 -race -short -timeout 20m ./...

# The MongoDB tier: every package whose tests open a store (their test
# binary links internal/store/storetest, directly or through a harness such
# as testenv or streamtest) runs again with the store on the MongoDB at
# MONGODB_URI, each test in a database of its own; the console's browser
# tests among them (tag browser: chromium needed). The summary counts the
# tests that ran on it from the harness's log.
STORE_TEST_PKGS = $(shell $(GO) list -test -tags browser -f '{{.ImportPath}} {{join .Deps " "}}' ./... \
	| awk '$$1 ~ /\.test$$/ && / [^ ]*internal\/store\/storetest( |$$)/ {sub(/\.test$$/, "", $$1); print $$1}')

test-mongo: ## every store-touching test again on the MongoDB at MONGODB_URI (Atlas, mongod, FerretDB)
	@test -n "$$MONGODB_URI" || { echo "test-mongo: set MONGODB_URI (e.g. mongodb://127.0.0.1:27017/); docs/testing.md"; exit 2; }
	@.ci/preflight chromium
	@log=$$(mktemp); trap 'rm -f $$log' EXIT; \
	STREAMOPS_TEST_ENGINE=mongodb STREAMOPS_TEST_ENGINE_LOG=$$log \
		$(GO) test -count=1 -tags browser -timeout 30m -skip '^$(SCALE_TESTS)$$' $(STORE_TEST_PKGS); rc=$$?; \
	awk -F'\t' '$$1=="mongodb" {ran++; pkg[$$2]++} $$1 ~ /^skip:/ {skip++; why[$$1]++} \
		END {printf "test-mongo: %d tests ran on the MongoDB engine, %d skipped by a named feature\n", ran, skip; \
		for (p in pkg) printf "  %-22s %d\n", p, pkg[p]; for (w in why) printf "  %-22s %d skipped\n", w, why[w]}' $$log | sort; \
	exit $$rc

# The scale tier: the replay at scale (TestReplayAtScale) and the history
# at volume (TestHistoryAtVolume) on the MongoDB at MONGODB_URI, alone,
# after test-mongo, so the engine they load slows no test beside them.
# SCALE_EVENTS sets the replay's size; unset, the test's own 2,000 (four
# replay batches: the mechanism, in seconds, as .ci/run runs it), and the
# history's 2,000. The figure of docs/performance.md, 100,000 events, is
# make bench's; docs/capacity.md's history figures are make history's.
SCALE_TESTS = (TestReplayAtScale|TestHistoryAtVolume)
SCALE_EVENTS ?=

test-scale: ## the replay at scale and the history at volume on the MongoDB at MONGODB_URI, alone (SCALE_EVENTS, default 2,000; make bench runs 100,000)
	@test -n "$$MONGODB_URI" || { echo "test-scale: set MONGODB_URI; docs/testing.md"; exit 2; }
	STREAMOPS_TEST_ENGINE=mongodb $(if $(SCALE_EVENTS),STREAMOPS_TEST_REPLAY_EVENTS=$(SCALE_EVENTS)) \
		$(GO) test -count=1 -v -timeout 60m -run '^$(SCALE_TESTS)$$' ./internal/replaybench ./internal/historybench

# The history's bytes and TTL deletions for docs/capacity/constants.json
# (docs/capacity.md, "The history at a billion documents"): HISTORY_EVENTS
# workflow lifecycle events stored, archived and deleted by the TTL
# monitor of the MongoDB at MONGODB_URI, which must sweep every
# HISTORY_TTL_SWEEP (FerretDB: ../shared/mongo/up --ttl-sweep 1).
HISTORY_EVENTS ?= 200000
HISTORY_TTL_SWEEP ?= 1s

history: ## the history's index bytes per million events and TTL deletion rate on the MongoDB at MONGODB_URI (HISTORY_EVENTS, default 200,000)
	@test -n "$$MONGODB_URI" || { echo "history: set MONGODB_URI (a FerretDB up with --ttl-sweep 1); docs/testing.md"; exit 2; }
	STREAMOPS_TEST_ENGINE=mongodb STREAMOPS_TEST_HISTORY_EVENTS=$(HISTORY_EVENTS) STREAMOPS_TEST_TTL_SWEEP=$(HISTORY_TTL_SWEEP) \
		$(GO) test -count=1 -v -timeout 60m -run '^TestHistoryAtVolume$$' ./internal/historybench

# Fuzz targets: the parsers that face the outside. Their seed corpora
# (f.Add and testdata/fuzz/) run in every go test; here each one is also
# fuzzed for FUZZTIME. A failing input is written to the package's
# testdata/fuzz/ by go test: commit it with the fix.
FUZZTIME ?= 5s
FUZZ_TARGETS := \
	./internal/provider:FuzzVerifySignatureHeaders \
	./internal/provider:FuzzDocument \
	./events:FuzzDecodeEnvelope \
	./internal/stream:FuzzDecodeKafkaEvent \
	./internal/apigw:FuzzAPIGatewayRequest \
	./internal/httpapi:FuzzAPIRoutesNeverAnswer5xx \
	./internal/httpapi:FuzzReplayFilterQuery \
	./internal/jsonbody:FuzzCheck \
	./internal/pii:FuzzScrub

# Go 1.26's fuzz coordinator can fail a target with a bare "context deadline
# exceeded" when -fuzztime ends while a worker is mid-input on a busy
# machine (go.dev/issue/75804, fixed in Go 1.27): no input failed and none
# is written. Such a run is tried once more; anything else fails at once.
fuzz: ## each fuzz target for FUZZTIME (5s): no panic, every rejection a 4xx or a dead letter
	@set -e; for t in $(FUZZ_TARGETS); do \
		for try in 1 2; do \
			echo "fuzz $${t#*:} ($${t%%:*}, $(FUZZTIME))"; \
			if $(GO) test -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) "$${t%%:*}" >/tmp/streamops-fuzz.log 2>&1; then break; fi; \
			if [ $$try = 1 ] && grep -q 'context deadline exceeded' /tmp/streamops-fuzz.log && \
				! grep -qE 'Failing input written|panic:|fuzz_test.go:[0-9]+:' /tmp/streamops-fuzz.log; then \
				echo "  the coordinator's deadline race (go.dev/issue/75804), no failing input: again"; continue; fi; \
			cat /tmp/streamops-fuzz.log; exit 1; \
		done; \
	done

lint: ## gofmt check + go vet
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench: ## the performance table: benchmarks and their baselines on the embedded engine (and MONGODB_URI's, with the 100,000-event replay), webhook latency empty vs BENCH_LATENCY_EVENTS stored, bootstrap sizes, start-to-ready
	$(GO) run ./internal/cmd/benchtable -benchtime $(BENCHTIME) -mongo-benchtime $(MONGO_BENCHTIME) -quick-benchtime $(QUICK_BENCHTIME) -scale-events $(BENCH_SCALE_EVENTS) -latency-events $(BENCH_LATENCY_EVENTS) -constants $(BENCH_CONSTANTS)

bench-all: ## every benchmark of every package, one run, BENCHTIME iterations
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

# The local stack's command, built for this machine: `streamops run` is the
# whole system in one process (docs/operations.md); the same binary is the
# ops client (streamops tail, replay, dead-letters, stats).
STREAMOPS := $(BUILD_DIR)/streamops

run: ## the local stack: every function in one process, data in .streamops/ (Ctrl-C stops it cleanly)
	$(GO) build -o $(STREAMOPS) ./internal/cmd/streamops
	@exec $(STREAMOPS) run

# The soak (docs/operations.md): the local stack in one process under a
# sustained signed-webhook rate with partner deliveries, a row a minute.
# Configured like make run by the environment (retention: STREAMOPS_*_TTL
# and the like), on a temporary data directory unless SOAK_DIR names one.
# Not part of make test or .ci/run.
SOAK_DURATION ?= 10m
SOAK_RATE     ?= 20

soak: ## the local stack at SOAK_RATE (20) signed webhooks/s with partner deliveries for SOAK_DURATION (10m): a row a minute of throughput, p50/p99, RSS, data, documents per collection
	$(GO) build -o $(STREAMOPS) ./internal/cmd/streamops
	@SOAK_DURATION=$(SOAK_DURATION) SOAK_RATE=$(SOAK_RATE) exec $(STREAMOPS) soak

# docs/configuration.md is generated from the structs of internal/config;
# internal/config's TestDocsAreGenerated (in make unit) fails when the
# committed file differs.
docs: ## regenerate docs/configuration.md from the configuration structs
	$(GO) run ./internal/cmd/configdoc > docs/configuration.md

# docs/capacity.md is the capacity model at the default target (10,000
# webhooks/s, each starting a workflow), generated from the constants of a
# make bench run (docs/capacity/constants.json, which make bench rewrites)
# and AWS's quotas and prices (internal/capacity); internal/capacity's
# TestDocsAreGenerated (in make unit) fails when the committed file differs.
capacity: ## regenerate docs/capacity.md, the capacity model, from docs/capacity/constants.json
	$(GO) run ./internal/cmd/capacity > docs/capacity.md

clean: ## remove build output
	rm -rf $(BUILD_DIR)

# --- OpenAPI lint: Redocly's recommended rules over the API's document ------
# The Redocly CLI is pinned in openapi/package.json and
# openapi/package-lock.json (@redocly/cli 2.77.0) and installed there by
# npm ci, never globally. The document linted is the one the API serves,
# written by `streamops openapi`; openapi/redocly.yaml extends
# `recommended` and openapi/check.mjs fails on any error or warning.
REDOCLY := openapi/node_modules/.bin/redocly
# No telemetry and no update check: after npm ci the lint is offline.
REDOCLY_ENV := REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true

$(REDOCLY): openapi/package.json openapi/package-lock.json
	@.ci/preflight npm
	npm ci --prefix openapi --no-audit --no-fund --loglevel=error
	@touch $@

openapi-lint: $(REDOCLY) ## Redocly's recommended ruleset over the served OpenAPI document: no error, no warning
	@.ci/preflight node
	@mkdir -p $(BUILD_DIR)
	$(GO) run ./internal/cmd/streamops openapi > $(BUILD_DIR)/openapi.json
	@cd openapi && $(REDOCLY_ENV) ./node_modules/.bin/redocly lint --config redocly.yaml --format=json \
		../$(BUILD_DIR)/openapi.json >../$(BUILD_DIR)/openapi-lint.json 2>../$(BUILD_DIR)/openapi-lint.log; \
	node check.mjs <../$(BUILD_DIR)/openapi-lint.json || { cat ../$(BUILD_DIR)/openapi-lint.log; exit 1; }

# --- The operations console (docs/console.md) ---------------------
# Its front end is built from console/ by esbuild with the packages pinned in
# console/package.json and console/package-lock.json, installed there by
# npm ci, and committed under internal/console/dist/, so go build needs no
# npm. console-check rebuilds it into a temporary directory and fails when
# the committed files differ: the bundle cannot drift from its sources.
CONSOLE_NPM := console/node_modules/.bin/esbuild
CONSOLE_DIST := internal/console/dist

$(CONSOLE_NPM): console/package.json console/package-lock.json
	@.ci/preflight npm
	npm ci --prefix console --no-audit --no-fund --loglevel=error
	@touch $@

console: $(CONSOLE_NPM) ## rebuild the console's script and stylesheet into internal/console/dist/
	cd console && OUT=../$(CONSOLE_DIST) npm run --silent build

console-check: $(CONSOLE_NPM) ## fail when internal/console/dist/ is not what console/ builds with the pinned packages
	@tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	(cd console && OUT=$$tmp npm run --silent build) >/dev/null && \
	for f in app.js app.css; do \
		cmp -s $$tmp/$$f $(CONSOLE_DIST)/$$f || { echo "console-check: $(CONSOLE_DIST)/$$f is not what console/ builds: run make console and commit it"; exit 1; }; \
	done; echo "console-check: $(CONSOLE_DIST) matches console/ built with the pinned packages"

# The browser tests (about 10 s): headless Chromium (Debian's chromium,
# driven by chromedp) against the local stack, behind the build tag
# "browser" so go test ./... runs without a browser. A PNG of every page goes
# to STREAMOPS_CONSOLE_SCREENSHOTS (default: a temporary directory the test
# logs); CI keeps them under build/console-screenshots.
test-console: console-check ## the console in headless Chromium against the local stack (needs chromium)
	@.ci/preflight chromium
	$(GO) test -count=1 -tags browser -timeout 10m ./internal/console/browser/...

# --- Infrastructure: the CDK app in infra/ (a Go module of its own) ----------
# The CDK CLI is pinned in infra/package.json and infra/package-lock.json
# (aws-cdk 2.1148.1) and installed there by npm ci, never globally.
CDK := infra/node_modules/.bin/cdk
# CDK_ARGS passes context and flags to cdk, e.g.
#   make deploy CDK_ARGS='-c mskClusterArn=arn:aws:kafka:… -c vpcId=vpc-…'
CDK_ARGS ?=
# jsii (the Go CDK's bridge to Node) prints a banner on Node versions past
# their end of life (Debian's 18, NodeSource's 20); the tests and synth
# run the same either way.
JSII_ENV := JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=18,20
# No notices, telemetry or version check over the network; no EC2 metadata
# probe for credentials that synth does not need.
CDK_ENV := $(JSII_ENV) CDK_DISABLE_CLI_TELEMETRY=true CDK_DISABLE_VERSION_CHECK=true

$(CDK): infra/package.json infra/package-lock.json
	@.ci/preflight npm
	npm ci --prefix infra --no-audit --no-fund --loglevel=error
	@touch $@

synth: build $(CDK) ## cdk synth into cdk.out/, offline (cdk.json placeholders unless CDK_ARGS overrides)
	$(CDK_ENV) AWS_EC2_METADATA_DISABLED=true AWS_REGION=$${AWS_REGION:-us-east-1} \
		$(CDK) synth --no-notices --quiet $(CDK_ARGS)

deploy: build $(CDK) ## cdk deploy with your AWS credentials; real context in CDK_ARGS (docs/deploy.md)
	$(CDK_ENV) $(CDK) deploy --no-notices -c requireRealContext=true $(CDK_ARGS)

bootstrap: $(CDK) ## cdk bootstrap, once per account and region, before the first deploy
	$(CDK_ENV) $(CDK) bootstrap --no-notices $(CDK_ARGS)

infra-test: ## go vet + the template tests of the CDK app (cd infra && go test ./...)
	@.ci/preflight node
	cd infra && $(GO) vet ./... && $(JSII_ENV) $(GO) test -count=1 ./...

infra-clean: ## remove cdk.out/ and the installed CDK CLI
	rm -rf cdk.out infra/node_modules
