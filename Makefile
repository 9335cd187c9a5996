# StreamOps — build, test and run. `make help` lists the targets.

GO        ?= go
FUNCTIONS := webhook api workflow-processor task-processor outbox-relay retry-sweeper archiver
BUILD_DIR ?= build
# Benchmarks run a fixed number of iterations so one run compares a result
# with its baseline on equal terms; raise it for steadier numbers.
BENCHTIME ?= 10x
# The Lambda build of seed/DESIGN: arm64, provided.al2023, no RPC shim.
LAMBDA_ENV   := GOOS=linux GOARCH=arm64 CGO_ENABLED=0
LAMBDA_FLAGS := -tags lambda.norpc -trimpath -ldflags='-s -w'

.PHONY: help build test unit race lint bench run clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-8s %s\n", $$1, $$2}'

build: $(FUNCTIONS:%=$(BUILD_DIR)/%.zip) ## arm64 bootstrap + zip per Lambda under build/

$(BUILD_DIR)/%.zip: FORCE
	@mkdir -p $(BUILD_DIR)/$*
	$(LAMBDA_ENV) $(GO) build $(LAMBDA_FLAGS) -o $(BUILD_DIR)/$*/bootstrap ./functions/$*
	$(GO) tool build-lambda-zip -o $@ $(BUILD_DIR)/$*/bootstrap >/dev/null

FORCE:

test: lint unit race build ## everything CI runs: lint, all tests, the race run, the Lambda build

# The embedded engine copies a collection on every write, which makes the
# large-volume tests allocation-bound: a lazier GC saves a fifth of their time.
unit: ## go test ./... (store suite on the embedded engine, bus suite on kfake)
	GOGC=400 $(GO) test -count=1 -timeout 20m ./...

race: ## the race detector over everything but the large-volume tests (-short)
	$(GO) test -count=1 -race -short -timeout 20m ./...

lint: ## gofmt check + go vet
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench: ## benchmarks with their baselines, one run
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

run: ## the local stack (arrives with the local-stack issue)
	@echo "make run: the local stack is not built yet (see the local-stack issue); use 'make test'." >&2; exit 2

clean: ## remove build output
	rm -rf $(BUILD_DIR)
