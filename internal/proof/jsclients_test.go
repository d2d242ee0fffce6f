//go:build unix

package proof

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// jsClientsMinTests is how many tests testdata/clients holds (todos included): a run
// of fewer means a test file was lost (renamed past node's pattern, or failing to load
// unnoticed).
const jsClientsMinTests = 39

// TestJSClients runs testdata/clients' suite (node's test runner, `node --test`, on
// the node 22 of testdata/node22): the JS client libraries people point at Switchboard
// (openai, @anthropic-ai/sdk, @openai/agents, @modelcontextprotocol/sdk, Vercel's ai
// with @ai-sdk/mcp and @ai-sdk/openai, @langchain/mcp-adapters), each in its documented
// way, against a `switchboard serve` of the binary built here that the suite starts
// with `switchboard fake-llm` as its model (and internal/testserver among its servers). A library release or a change of ours that
// breaks one fails here, with the runner's report.
func TestJSClients(t *testing.T) {
	node22 := testenv.Node22(t)
	dir := filepath.Join(testenv.ModuleRoot(t), "testdata", "clients")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err != nil {
		testenv.Missing(t, "the JS client libraries are not installed in testdata/clients (%v); run `make deps` (npm ci in testdata/clients)", err)
		return
	}
	testenv.NPMBin(t, testenv.ServerEverything) // the suite's config runs it
	switchboard := testenv.Switchboard(t)
	testServer := testserver.Build(t)
	sb := testenv.NewSandbox(t)
	t.Cleanup(func() { noProcessesLeft(t, switchboard, "switchboard") })

	// The suite's temporary files (its configs, serve's data) go in the sandbox, which
	// the test removes whatever the suite leaves.
	env := append(nodeEnv(sb, node22), "SWITCHBOARD_BIN="+switchboard, "SWITCHBOARD_TESTSERVER="+testServer, "TMPDIR="+sb.Dir)
	node := filepath.Join(node22, "node_modules", ".bin", "node")
	r := run(t.Context(), dir, env, 4*time.Minute, node, "--test", "--test-reporter=spec", "--test-concurrency=3")
	report := r.stdout + r.stderr
	if r.code != 0 || r.err != nil {
		t.Fatalf("node --test in testdata/clients: exit %d (%v) after %s:\n%s", r.code, r.err, r.elapsed.Round(time.Millisecond), tail(report, 400))
	}
	// The todos mark the places of tests still to come: they neither pass nor fail. A
	// skipped test would be a library not tested.
	tests, pass, todo := runnerCount(report, "tests"), runnerCount(report, "pass"), runnerCount(report, "todo")
	if tests < jsClientsMinTests || pass+todo != tests {
		t.Fatalf("node --test ran %d tests (want at least %d), %d passed, %d todo:\n%s", tests, jsClientsMinTests, pass, todo, tail(report, 400))
	}
	t.Logf("node --test in testdata/clients: %d tests passed (and %d todo) in %s", pass, todo, r.elapsed.Round(time.Millisecond))
}

// runnerCount is the number that the spec reporter's summary of node's test runner
// gives for what ("ℹ tests 31"), -1 when it is missing.
func runnerCount(report, what string) int {
	m := regexp.MustCompile(`(?m)^ℹ ` + what + ` (\d+)$`).FindStringSubmatch(report)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestClientsDocSnippets: docs/clients.md's JavaScript is the code testdata/clients
// runs. Each region of a test file between "// docs:NAME" and "// docs:end" appears,
// dedented, in one of the page's ```js blocks, and each block holds at least one.
func TestClientsDocSnippets(t *testing.T) {
	root := testenv.ModuleRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "docs", "clients.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```js\n(.*?)```").FindAllStringSubmatch(string(page), -1)
	if len(blocks) == 0 {
		t.Fatal("docs/clients.md has no ```js block")
	}
	files, err := filepath.Glob(filepath.Join(root, "testdata", "clients", "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/clients/*.test.mjs (%v)", err)
	}
	used := make([]bool, len(blocks))
	regions := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for name, code := range docRegions(t, filepath.Base(f), string(src)) {
			regions++
			found := false
			for i, b := range blocks {
				if strings.Contains("\n"+b[1], "\n"+code) { // whole lines
					used[i], found = true, true
				}
			}
			if !found {
				t.Errorf("%s: region docs:%s is in no ```js block of docs/clients.md; the page should show:\n%s", filepath.Base(f), name, code)
			}
		}
	}
	for i, b := range blocks {
		if !used[i] {
			t.Errorf("docs/clients.md: ```js block %d holds no region of testdata/clients (untested code):\n%s", i+1, b[1])
		}
	}
	if regions < 10 {
		t.Errorf("%d docs: regions in testdata/clients, want one per library's snippet", regions)
	}
}

// docRegions returns the "// docs:NAME" ... "// docs:end" regions of a file, by name,
// each dedented by its first line's indentation, with a final newline.
func docRegions(t *testing.T, file, src string) map[string]string {
	t.Helper()
	out := map[string]string{}
	var name, indent string
	var lines []string
	for i, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "// docs:end":
			if name == "" {
				t.Errorf("%s:%d: docs:end without a docs:NAME", file, i+1)
				continue
			}
			out[name] = strings.Join(lines, "\n") + "\n"
			name, lines = "", nil
		case strings.HasPrefix(trimmed, "// docs:"):
			if name != "" {
				t.Errorf("%s:%d: docs:%s inside docs:%s", file, i+1, trimmed, name)
			}
			name = strings.TrimPrefix(trimmed, "// docs:")
			indent = line[:len(line)-len(strings.TrimLeft(line, " "))]
			if _, dup := out[name]; dup {
				t.Errorf("%s:%d: docs:%s twice", file, i+1, name)
			}
		case name != "":
			lines = append(lines, strings.TrimPrefix(line, indent))
		}
	}
	if name != "" {
		t.Errorf("%s: docs:%s has no docs:end", file, name)
	}
	return out
}
