//go:build unix

package proof

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// revision2026 is the protocol revision whose frozen requirements
// TestConformanceClient2026 runs.
const revision2026 = "2026-07-28"

// TestConformanceClient2026 runs the client scenarios that the MCP conformance suite
// 0.2.0-alpha.12 (testdata/node22's "conformance-next") requires of a client of the
// 2026-07-28 revision (`conformance client --requirements 2026-07-28`), and those it
// runs without scoring them (extensions, and a scenario added after the revision
// shipped), with Switchboard as the client: scripts/conformance-client signs in with
// `switchboard login` and calls with `switchboard call` for the "auth/" ones, and hands
// the others to internal/proof/confclient, which makes Switchboard's own upstream
// connection (hub, supervisor, SDK client) do what each asks. Every check of every
// scenario must pass, but for the extensions that
// testdata/conformance-client-2026-07-28.baseline lists with a reason; a listed one that
// passes fails the test until its line is removed. Each scenario is a subtest.
func TestConformanceClient2026(t *testing.T) {
	node22 := testenv.Node22(t)
	suite := filepath.Join(node22, "node_modules", "conformance-next")
	if _, err := os.Stat(filepath.Join(suite, "dist", "index.js")); err != nil {
		testenv.Missing(t, "the conformance suite 0.2.0-alpha.12 is not installed in testdata/node22 (%v); run `make deps`", err)
		return
	}
	required, unscored := requirements(t, filepath.Join(suite, "requirements", revision2026+".yaml"))
	baseline := clientBaseline(t, filepath.Join("testdata", "conformance-client-"+revision2026+".baseline"))
	for sc := range baseline {
		if slices.Contains(required, sc) || !slices.Contains(unscored, sc) {
			t.Errorf("baseline: %s is not an extension the suite runs without scoring; only those may be listed", sc)
		}
	}

	switchboard := testenv.Switchboard(t)
	driver := testenv.Build(t, testenv.ModulePath+"/internal/proof/confclient", "confclient")
	client := filepath.Join(testenv.ModuleRoot(t), "scripts", "conformance-client")
	sb := testenv.NewSandbox(t)
	env := append(nodeEnv(sb, node22), "SWITCHBOARD="+switchboard, "SWITCHBOARD_CONFCLIENT="+driver)
	t.Cleanup(func() {
		noProcessesLeft(t, switchboard, "switchboard")
		noProcessesLeft(t, driver, "confclient")
	})

	dir := filepath.Join(sb.Dir, "client-"+revision2026)
	node := filepath.Join(node22, "node_modules", ".bin", "node")
	r := run(t.Context(), node22, env, conformanceTimeout, node, filepath.Join(suite, "dist", "index.js"),
		"client", "--command", client, "--requirements", revision2026, "--output-dir", dir)
	checks, err := clientChecks(dir)
	if err != nil {
		t.Fatalf("%v\n%v", err, r)
	}
	var failed []string
	for _, sc := range append(slices.Clone(required), unscored...) {
		cs, ran := checks[sc]
		var problems []string
		if !ran {
			problems = append(problems, "the scenario wrote no results")
		}
		for _, c := range cs {
			if c.Status == "FAILURE" {
				problems = append(problems, fmt.Sprintf("check %s failed: %s", c.ID, c.message()))
			}
		}
		reason, expected := baseline[sc]
		if len(problems) > 0 && !expected {
			failed = append(failed, sc)
		}
		t.Run(sc, func(t *testing.T) {
			for _, c := range cs {
				if c.Status == "WARNING" {
					t.Logf("check %s: warning: %s", c.ID, c.message())
				}
			}
			switch {
			case expected && ran && len(problems) == 0:
				t.Errorf("Switchboard passes %s, which the baseline says it fails (%s): remove its line", sc, reason)
			case expected:
				t.Logf("fails, as the baseline says (%s):\n  %s", reason, strings.Join(problems, "\n  "))
			case len(problems) > 0:
				t.Errorf("Switchboard fails scenario %s:\n  %s", sc, strings.Join(problems, "\n  "))
			}
		})
	}
	t.Logf("conformance client, %s: %d required scenarios and %d unscored; %d fail outside the baseline",
		revision2026, len(required), len(unscored), len(failed))
	if len(failed) > 0 {
		t.Logf("%s", tail(r.stdout+r.stderr, 80))
	}
}

// requirements reads the client scenarios of a requirement set of the suite
// (requirements/REVISION.yaml): those required ("client:") and those run without
// scoring (the "not_scored:" entries whose leg is client). The file's shape is the
// suite's own, fixed at the revision's release: top-level keys, lists of "- name", and
// not_scored entries of "- scenario: NAME" then "leg: LEG".
func requirements(t *testing.T, path string) (required, unscored []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	section, pending := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case !strings.HasPrefix(line, " "):
			section, _, _ = strings.Cut(trimmed, ":")
		case section == "client" && strings.HasPrefix(trimmed, "- "):
			required = append(required, strings.TrimSpace(strings.TrimPrefix(trimmed, "- ")))
		case section == "not_scored" && strings.HasPrefix(trimmed, "- scenario:"):
			pending = strings.TrimSpace(strings.TrimPrefix(trimmed, "- scenario:"))
		case section == "not_scored" && strings.HasPrefix(trimmed, "leg:"):
			if strings.TrimSpace(strings.TrimPrefix(trimmed, "leg:")) == "client" && pending != "" {
				unscored = append(unscored, pending)
			}
			pending = ""
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(required) == 0 {
		t.Fatalf("%s: no client scenarios read; has the suite's format changed?", path)
	}
	return required, unscored
}

// clientBaseline reads a baseline file: one scenario a line, '#' and its reason after
// it; lines that start with '#' are comments. A scenario without a reason fails the
// test.
func clientBaseline(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sc, reason, _ := strings.Cut(line, "#")
		sc, reason = strings.TrimSpace(sc), strings.TrimSpace(reason)
		if reason == "" {
			t.Errorf("%s:%d: %s has no reason", path, i+1, sc)
		}
		out[sc] = reason
	}
	return out
}
