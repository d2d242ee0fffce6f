//go:build unix

package proof

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// authSuite are the scenarios of the conformance suite's client suite "auth"
// (@modelcontextprotocol/conformance 0.1.16): sign-in from the server's 401 to a
// tool call, every discovery variant, the scopes, step-up and its bound, the token
// endpoint's client authentication, pre-registration and client ID metadata.
var authSuite = []string{
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd",
	"auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
	"auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration",
}

// authExtra are the client scenarios outside the suite that the sign-in passes too:
// the 2025-03-26 discovery (metadata at the origin, and the endpoints without any),
// offline_access (asked for where offered, not elsewhere), metadata for another
// resource refused, and the client credentials grant. The Go SDK's own example
// client passes 4 of these 6.
var authExtra = []string{
	"auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
	"auth/offline-access-scope", "auth/offline-access-not-supported",
	"auth/resource-mismatch", "auth/client-credentials-basic",
}

// clientResultDirRE matches the directory of one client scenario's results:
// auth/NAME-2026-11-27T05-41-08-287Z.
var clientResultDirRE = regexp.MustCompile(`^(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// TestConformanceClient runs the MCP conformance suite's client scenarios of sign-in
// against Switchboard as a person would use it: scripts/conformance-client, given each
// scenario server's URL, writes a config with that server, runs `switchboard login`
// (with scripts/conformance-browser, which follows the authorization server's
// redirect, as $BROWSER) and `switchboard call test-tool`. Every check of the 14
// scenarios of the "auth" suite and of the 6 others must pass; each scenario is a
// subtest.
func TestConformanceClient(t *testing.T) {
	node22 := testenv.Node22(t)
	conformance := testenv.Node22Bin(t, "conformance")
	switchboard := testenv.Switchboard(t)
	client := filepath.Join(testenv.ModuleRoot(t), "scripts", "conformance-client")
	sb := testenv.NewSandbox(t)
	env := append(nodeEnv(sb, node22), "SWITCHBOARD="+switchboard)
	t.Cleanup(func() { noProcessesLeft(t, switchboard, "switchboard") })

	// The suite's scenarios run at once; the others one run each, at once too.
	type outcome struct {
		dir string
		r   result
	}
	runs := make([]outcome, 1+len(authExtra))
	var wg sync.WaitGroup
	for i := range runs {
		args := []string{"--suite", "auth"}
		if i > 0 {
			args = []string{"--scenario", authExtra[i-1]}
		}
		dir := filepath.Join(sb.Dir, fmt.Sprintf("client-%d", i))
		wg.Go(func() {
			runs[i] = outcome{dir, run(t.Context(), node22, env, conformanceTimeout,
				append([]string{conformance, "client", "--command", client, "--output-dir", dir}, args...)...)}
		})
	}
	wg.Wait()
	checks := map[string][]check{}
	for _, o := range runs {
		got, err := clientChecks(o.dir)
		if err != nil {
			t.Fatalf("%v\n%v", err, o.r)
		}
		for sc, cs := range got {
			checks[sc] = cs
		}
	}
	var failed []string
	for _, sc := range append(slices.Clone(authSuite), authExtra...) {
		cs, ran := checks[sc]
		var problems []string
		switch {
		case !ran:
			problems = append(problems, "the scenario wrote no results")
		default:
			for _, c := range cs {
				if c.Status == "FAILURE" {
					problems = append(problems, fmt.Sprintf("check %s failed: %s", c.ID, c.message()))
				}
			}
		}
		if len(problems) > 0 {
			failed = append(failed, sc)
		}
		t.Run(strings.TrimPrefix(sc, "auth/"), func(t *testing.T) {
			for _, c := range cs {
				if c.Status == "WARNING" {
					t.Logf("check %s: warning: %s", c.ID, c.message())
				}
			}
			if len(problems) > 0 {
				t.Errorf("Switchboard fails scenario %s:\n  %s", sc, strings.Join(problems, "\n  "))
			}
		})
	}
	t.Logf("conformance client, sign-in: %d of %d scenarios pass (the auth suite's %d and %d others)",
		len(authSuite)+len(authExtra)-len(failed), len(authSuite)+len(authExtra), len(authSuite), len(authExtra))
	if len(failed) > 0 {
		for _, o := range runs {
			t.Logf("%s", tail(o.r.stdout+o.r.stderr, 60))
		}
	}
}

// clientChecks reads the checks of every client scenario whose results are under dir
// (dir/auth/NAME-TIMESTAMP/checks.json, or dir/NAME-TIMESTAMP/checks.json for a
// scenario outside a group), by scenario ("auth/NAME", "NAME").
func clientChecks(dir string) (map[string][]check, error) {
	out := map[string][]check{}
	groups, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("the suite wrote no results: %v", err)
	}
	read := func(scenario, path string) error {
		b, err := os.ReadFile(filepath.Join(path, "checks.json"))
		if err != nil {
			return err
		}
		var cs []check
		if err := json.Unmarshal(b, &cs); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		out[scenario] = cs
		return nil
	}
	for _, g := range groups {
		if m := clientResultDirRE.FindStringSubmatch(g.Name()); m != nil && g.IsDir() {
			if err := read(m[1], filepath.Join(dir, g.Name())); err != nil {
				return nil, err
			}
			continue
		}
		entries, err := os.ReadDir(filepath.Join(dir, g.Name()))
		if err != nil {
			continue
		}
		for _, e := range entries {
			m := clientResultDirRE.FindStringSubmatch(e.Name())
			if m == nil || !e.IsDir() {
				continue
			}
			if err := read(g.Name()+"/"+m[1], filepath.Join(dir, g.Name(), e.Name())); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
