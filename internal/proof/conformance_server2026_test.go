//go:build unix

package proof

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// sameToolsCheck wants a tools/list_changed on a subscriptions/listen stream after
// the everything-server's hook "mutates" its tools. The hook adds one tool, always
// the same: the server announces every addition, the gateway a change of its
// catalog, which only the first makes (an earlier check of the same scenario calls
// the hook already). gateway's TestRevision2026ThroughTheGateway sees the first one
// arrive. The check is a SHOULD, and a warning when it fails.
const sameToolsCheck = "sep-2575-server-sends-tools-list-changed-on-subscription"

// TestConformanceServer2026 runs the server scenarios that the MCP conformance suite
// 0.2.0-alpha.12 (testdata/node22's "conformance-next") requires of a server of the
// 2026-07-28 revision (`conformance server --requirements 2026-07-28`), and those it
// runs without scoring, against the gateway in front of the Go SDK's everything-server
// over stdio (upstream at 2026-07-28, no pin): `switchboard mcp --listen` (sessions for
// older clients, none for 2026-07-28's), `switchboard mcp --listen --stateless`, and
// serve's /mcp; and the first two again with the everything-server held to 2025-11-25
// ("protocolVersion" in its entry), whose SDK then asks for input in the middle of a
// call, which the gateway turns into input-required rounds. As the baseline it runs them against the everything-server served
// directly over Streamable HTTP without sessions. Each target and scenario is a
// subtest: it fails when the target fails a check, or lacks one the everything-server
// passes on its own, but for the extensions that
// testdata/conformance-server-2026-07-28.baseline lists with a reason (and, for an
// upstream of 2025-11-25, its -upstream-2025-11-25.baseline: what that revision's wire
// cannot carry); a listed one that passes fails the test until its line is removed.
//
// One check may be a warning through the gateway where the everything-server passes
// it: sameToolsCheck, a SHOULD.
func TestConformanceServer2026(t *testing.T) {
	node22 := testenv.Node22(t)
	suite := filepath.Join(node22, "node_modules", "conformance-next")
	if _, err := os.Stat(filepath.Join(suite, "dist", "index.js")); err != nil {
		testenv.Missing(t, "the conformance suite 0.2.0-alpha.12 is not installed in testdata/node22 (%v); run `make deps`", err)
		return
	}
	baseline := clientBaseline(t, filepath.Join("testdata", "conformance-server-"+revision2026+".baseline"))
	// In front of a server held to 2025-11-25, what that revision's wire cannot carry.
	olderBaseline := maps.Clone(baseline)
	maps.Copy(olderBaseline, clientBaseline(t, filepath.Join("testdata", "conformance-server-"+revision2026+"-upstream-2025-11-25.baseline")))
	everything := testenv.EverythingServer(t)
	switchboard := testenv.Switchboard(t)
	sb := testenv.NewSandbox(t)
	env := nodeEnv(sb, node22)
	t.Cleanup(func() {
		noProcessesLeft(t, everything, "everything-server")
		noProcessesLeft(t, switchboard, "switchboard")
	})

	config := filepath.Join(sb.Dir, "mcp.json")
	writeJSON(t, config, map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": everything}}})
	pinned := filepath.Join(sb.Dir, "mcp-2025.json")
	writeJSON(t, pinned, map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": everything, "protocolVersion": "2025-11-25"}}})
	direct := startServer(t, "everything-server", sb.Work, env, func(addr string) []string {
		return []string{everything, "-http", addr}
	})
	targets := []struct {
		name     string
		srv      *server
		baseline map[string]string
	}{
		{"mcp", startServer(t, "switchboard mcp", sb.Work, env, func(addr string) []string {
			return []string{switchboard, "mcp", "--config", config, "--listen", addr}
		}), baseline},
		{"mcp-stateless", startServer(t, "switchboard mcp --stateless", sb.Work, env, func(addr string) []string {
			return []string{switchboard, "mcp", "--config", config, "--listen", addr, "--stateless"}
		}), baseline},
		{"serve", startServer(t, "switchboard serve", sb.Work, env, func(addr string) []string {
			// --no-token: the suite sends no bearer token; the token serve makes by
			// default is tested in cmd/switchboard.
			return []string{switchboard, "serve", "--config", config, "--addr", addr, "--no-token"}
		}), baseline},
		// The same server held to 2025-11-25 upstream: it asks its client in the
		// middle of a call, and the gateway turns that into rounds for the suite.
		{"mcp-upstream-2025", startServer(t, "switchboard mcp (upstream 2025-11-25)", sb.Work, env, func(addr string) []string {
			return []string{switchboard, "mcp", "--config", pinned, "--listen", addr}
		}), olderBaseline},
		{"mcp-stateless-upstream-2025", startServer(t, "switchboard mcp --stateless (upstream 2025-11-25)", sb.Work, env, func(addr string) []string {
			return []string{switchboard, "mcp", "--config", pinned, "--listen", addr, "--stateless"}
		}), olderBaseline},
	}

	node := filepath.Join(node22, "node_modules", ".bin", "node")
	argv := []string{node, filepath.Join(suite, "dist", "index.js"), "server", "--requirements", revision2026}
	var (
		wg   sync.WaitGroup
		runs = make([]*suiteRun, len(targets)+1)
		errs = make([]error, len(targets)+1)
	)
	urls := []string{direct.url()}
	for _, tg := range targets {
		urls = append(urls, tg.srv.url())
	}
	for i, url := range urls {
		wg.Go(func() {
			runs[i], errs[i] = runSuiteArgs(t.Context(), node22, argv, env, url, filepath.Join(sb.Dir, fmt.Sprintf("conformance-%d", i)))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("conformance suite against %s: %v", urls[i], err)
		}
	}
	base := runs[0]
	for sc := range olderBaseline {
		if !slices.Contains(base.scenarios, sc) {
			t.Errorf("baseline: the suite runs no scenario %s", sc)
		}
	}
	var baseFails []string
	for _, sc := range base.scenarios {
		if _, listed := baseline[sc]; !listed && len(base.problems(sc, nil)) > 0 {
			baseFails = append(baseFails, sc)
		}
	}
	if len(baseFails) > 0 {
		t.Errorf("the everything-server on its own fails %s (the suite or the server changed)", strings.Join(baseFails, ", "))
	}
	for i, tg := range targets {
		got := runs[i+1]
		t.Logf("conformance server %s, %s: the everything-server alone passes %s; through %s %s",
			revision2026, "--requirements", base.score(), tg.name, got.score())
		if !slices.Equal(base.scenarios, got.scenarios) {
			t.Errorf("%s: the runs ran different scenarios:\n  alone: %v\n  %s: %v", tg.name, base.scenarios, tg.name, got.scenarios)
		}
		t.Run(tg.name, func(t *testing.T) {
			for _, sc := range union(base.scenarios, got.scenarios) {
				problems := slices.DeleteFunc(got.problems(sc, base), func(p string) bool {
					return p == "check "+sameToolsCheck+" is WARNING; it passes on the everything-server alone"
				})
				reason, expected := tg.baseline[sc]
				t.Run(sc, func(t *testing.T) {
					for _, c := range got.checks[sc] {
						if c.Status == "WARNING" {
							t.Logf("check %s: warning: %s", c.ID, c.message())
						}
					}
					switch {
					case expected && len(problems) == 0:
						t.Errorf("%s passes %s, which the baseline says it fails (%s): remove its line", tg.name, sc, reason)
					case expected:
						t.Logf("fails, as the baseline says (%s)", reason)
					case len(problems) > 0:
						t.Errorf("%s fails scenario %s:\n  %s", tg.name, sc, strings.Join(problems, "\n  "))
					}
				})
			}
			if t.Failed() {
				t.Logf("conformance summary through %s:\n%s", tg.name, got.summary())
			}
		})
	}
}
