//go:build unix

package proof

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// conformanceTimeout bounds one run of the conformance suite (about 1 s when every
// scenario answers).
const conformanceTimeout = 3 * time.Minute

// TestConformance runs the MCP conformance suite's active server scenarios against the
// gateway (`switchboard mcp --listen`, re-exporting the Go SDK's everything-server over
// stdio) and, as the baseline, against the everything-server served directly over
// Streamable HTTP. Each scenario is a subtest: it fails when the gateway fails a check,
// or lacks one that the everything-server passes on its own.
func TestConformance(t *testing.T) {
	node22 := testenv.Node22(t)
	conformance := testenv.Node22Bin(t, "conformance")
	everything := testenv.EverythingServer(t)
	switchboard := testenv.Switchboard(t)
	sb := testenv.NewSandbox(t)
	env := nodeEnv(sb, node22)
	// Registered first, so it runs after both servers were stopped.
	t.Cleanup(func() {
		noProcessesLeft(t, everything, "everything-server")
		noProcessesLeft(t, switchboard, "switchboard")
	})

	direct := startServer(t, "everything-server", sb.Work, env, func(addr string) []string {
		return []string{everything, "-http", addr, "-stateless=false"}
	})
	config := filepath.Join(sb.Dir, "mcp.json")
	// The suite's sampling and elicitation scenarios call tools of the
	// everything-server that send their requests in the middle of the call, which its
	// SDK refuses on a 2026-07-28 connection: the gateway asks it for 2025-11-25, the
	// version this suite speaks.
	writeJSON(t, config, map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": everything, "protocolVersion": "2025-11-25"}}})
	gateway := startServer(t, "switchboard mcp", sb.Work, env, func(addr string) []string {
		return []string{switchboard, "mcp", "--config", config, "--listen", addr}
	})

	// The two runs are independent: run them at once.
	var (
		wg        sync.WaitGroup
		base, got *suiteRun
		baseErr   error
		gotErr    error
	)
	wg.Go(func() {
		base, baseErr = runSuite(t.Context(), node22, conformance, env, direct.url(), filepath.Join(sb.Dir, "conformance-direct"))
	})
	wg.Go(func() {
		got, gotErr = runSuite(t.Context(), node22, conformance, env, gateway.url(), filepath.Join(sb.Dir, "conformance-gateway"))
	})
	wg.Wait()
	if baseErr != nil {
		t.Fatalf("conformance suite against the everything-server on its own (%s): %v", direct.url(), baseErr)
	}
	if gotErr != nil {
		t.Fatalf("conformance suite against the gateway (%s): %v", gateway.url(), gotErr)
	}
	t.Logf("conformance server, active suite: the everything-server alone passes %s in %s; through the gateway %s in %s",
		base.score(), base.elapsed.Round(time.Millisecond), got.score(), got.elapsed.Round(time.Millisecond))

	if !slices.Equal(base.scenarios, got.scenarios) {
		t.Errorf("the two runs ran different scenarios:\n  alone:   %v\n  gateway: %v", base.scenarios, got.scenarios)
	}
	var lost, baseFails []string
	for _, sc := range union(base.scenarios, got.scenarios) {
		baseProblems := base.problems(sc, nil)
		gotProblems := got.problems(sc, base)
		if len(baseProblems) > 0 {
			baseFails = append(baseFails, sc)
		}
		if len(gotProblems) > 0 && len(baseProblems) == 0 {
			lost = append(lost, sc)
		}
		t.Run(sc, func(t *testing.T) {
			for _, c := range got.checks[sc] {
				if c.Status == "WARNING" {
					t.Logf("gateway: check %s: warning: %s", c.ID, c.message())
				}
			}
			if len(baseProblems) > 0 {
				t.Errorf("the everything-server on its own fails this scenario (the suite or the server changed):\n  %s",
					strings.Join(baseProblems, "\n  "))
			}
			if len(gotProblems) > 0 {
				t.Errorf("the gateway fails this scenario:\n  %s", strings.Join(gotProblems, "\n  "))
			}
		})
	}
	if len(baseFails) > 0 {
		t.Errorf("the everything-server on its own fails %d scenario(s): %s", len(baseFails), strings.Join(baseFails, ", "))
	}
	if len(lost) > 0 {
		t.Errorf("the gateway passes %s (the everything-server alone: %s); it loses %d scenario(s) that pass without it: %s",
			got.score(), base.score(), len(lost), strings.Join(lost, ", "))
	}
	if t.Failed() {
		t.Logf("conformance summary through the gateway:\n%s", got.summary())
	}
}

// check is one check of a scenario, as the conformance suite writes it in checks.json.
type check struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO, ...
	ErrorMessage string `json:"errorMessage"`
}

func (c check) message() string {
	if c.ErrorMessage != "" {
		return c.ErrorMessage
	}
	return c.Description
}

// suiteRun is the result of one `conformance server` run.
type suiteRun struct {
	scenarios []string           // in the order run
	checks    map[string][]check // by scenario, from its checks.json
	output    string             // stdout and stderr
	elapsed   time.Duration
}

var (
	// "Running active suite (N scenarios)", or with --requirements (0.2.0-alpha.12)
	// "Running requirements 2026-07-28 (N scenarios)".
	suiteSizeRE = regexp.MustCompile(`(?m)^Running (?:\S+ suite|requirements \S+) \((\d+) scenarios\)`)
	scenarioRE  = regexp.MustCompile(`(?m)^=== Running scenario: (\S+) ===$`)
	// resultDirRE matches the directory that holds a scenario's checks.json:
	// server-SCENARIO-2026-11-21T10-44-12-397Z.
	resultDirRE = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)
)

// runSuite runs the conformance suite's active server scenarios against url, with its
// results in outDir, and reads them back. It fails only when the suite did not run;
// failed checks are in the result.
func runSuite(ctx context.Context, node22, conformance string, env []string, url, outDir string) (*suiteRun, error) {
	return runSuiteArgs(ctx, node22, []string{conformance, "server"}, env, url, outDir)
}

// runSuiteArgs is runSuite with the suite's command line up to its options (argv).
func runSuiteArgs(ctx context.Context, node22 string, argv, env []string, url, outDir string) (*suiteRun, error) {
	r := run(ctx, node22, env, conformanceTimeout, append(slices.Clone(argv), "--url", url, "--output-dir", outDir)...)
	// Exit status 1 means that some check failed; anything else, that the suite did not run.
	if r.err != nil && r.code != 1 {
		return nil, fmt.Errorf("%v", r)
	}
	s := &suiteRun{checks: map[string][]check{}, output: r.stdout + r.stderr, elapsed: r.elapsed}
	for _, m := range scenarioRE.FindAllStringSubmatch(r.stdout, -1) {
		s.scenarios = append(s.scenarios, m[1])
	}
	m := suiteSizeRE.FindStringSubmatch(r.stdout)
	if m == nil || len(s.scenarios) == 0 {
		return nil, fmt.Errorf("no scenario ran:\n%v", r)
	}
	if n, _ := strconv.Atoi(m[1]); n != len(s.scenarios) {
		return nil, fmt.Errorf("the suite announced %d scenarios and ran %d:\n%v", n, len(s.scenarios), r)
	}
	entries, err := os.ReadDir(outDir)
	if err != nil {
		return nil, fmt.Errorf("%v\n%v", err, r)
	}
	for _, e := range entries {
		m := resultDirRE.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(outDir, e.Name(), "checks.json"))
		if err != nil {
			return nil, err
		}
		var checks []check
		if err := json.Unmarshal(b, &checks); err != nil {
			return nil, fmt.Errorf("%s: %v", e.Name(), err)
		}
		if _, dup := s.checks[m[1]]; dup {
			return nil, fmt.Errorf("%s: two result directories for scenario %s", outDir, m[1])
		}
		s.checks[m[1]] = checks
	}
	return s, nil
}

// problems lists what is wrong with scenario sc in this run: a check that failed, a
// scenario that wrote no results, and (when base is not nil) a check that passes in
// base but not here.
func (s *suiteRun) problems(sc string, base *suiteRun) []string {
	checks, ok := s.checks[sc]
	if !ok {
		return []string{"it did not run to the end (no checks.json): " + s.runError(sc)}
	}
	var out []string
	status := map[string]string{} // by check ID
	for _, c := range checks {
		status[c.ID] = c.Status
		if c.Status == "FAILURE" {
			out = append(out, fmt.Sprintf("check %s failed: %s", c.ID, c.message()))
		}
	}
	if base != nil {
		for _, c := range base.checks[sc] {
			if c.Status != "SUCCESS" {
				continue
			}
			switch st, ran := status[c.ID]; {
			case !ran:
				out = append(out, fmt.Sprintf("check %s (%s) did not run; it passes on the everything-server alone", c.ID, c.Description))
			case st != "SUCCESS" && st != "FAILURE":
				out = append(out, fmt.Sprintf("check %s is %s; it passes on the everything-server alone", c.ID, st))
			}
		}
	}
	if len(out) == 0 && !slices.Contains(slices.Collect(maps.Values(status)), "SUCCESS") {
		out = append(out, "no check passed")
	}
	return out
}

// runError is what the suite printed about scenario sc failing to run.
func (s *suiteRun) runError(sc string) string {
	_, after, ok := strings.Cut(s.output, "Failed to run scenario "+sc+":")
	if !ok {
		return "the suite printed no error"
	}
	return strings.TrimSpace(tail(after, 5))
}

// score counts the checks that passed, of those that passed or failed, and the
// scenarios with no failure.
func (s *suiteRun) score() string {
	var passed, decided, clean int
	for _, sc := range s.scenarios {
		if len(s.problems(sc, nil)) == 0 {
			clean++
		}
		for _, c := range s.checks[sc] {
			switch c.Status {
			case "SUCCESS":
				passed++
				decided++
			case "FAILURE":
				decided++
			}
		}
	}
	return fmt.Sprintf("%d/%d checks, %d/%d scenarios", passed, decided, clean, len(s.scenarios))
}

// summary is the suite's own summary, from its output.
func (s *suiteRun) summary() string {
	if i := strings.Index(s.output, "=== SUMMARY ==="); i >= 0 {
		return strings.TrimSpace(s.output[i:])
	}
	return tail(s.output, 40)
}

// union returns a's elements, then those of b not in a.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
