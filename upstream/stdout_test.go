//go:build unix

package upstream_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// behindLines is the test server started by sh after it printed lines on stdout.
func behindLines(t *testing.T, name string, lines ...string) config.Server {
	t.Helper()
	cfg := testserver.Stdio(t, name)
	var script strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&script, "printf '%%s\\n' %s\n", shellQuote(l))
	}
	fmt.Fprintf(&script, "exec %s", shellQuote(cfg.Command))
	cfg.Command, cfg.Args = "sh", []string{"-c", script.String()}
	return cfg
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// logRecords decodes a JSON log.
func logRecords(t *testing.T, out string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var r map[string]any
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestJSONThatIsNotJSONRPCIsDropped: a stdout line that is JSON but not a JSON-RPC
// message is dropped with a warning, as a line of text is; the server starts. The
// SDK's reader ended the connection on it, and the start failed with no word of it.
func TestJSONThatIsNotJSONRPCIsDropped(t *testing.T) {
	junk := []string{
		`{"not":"jsonrpc"}`,
		`{"jsonrpc":"2.0"}`,        // neither a request nor a response
		`{"jsonrpc":"1.0","id":1}`, // the wrong version
		`[1, 2]`,                   // a batch of something else
		`[]`,
		`{"half": `, // not JSON at all, though it starts like it
	}
	var out testenv.Buffer
	opts := testserver.Fast()
	opts.Logger = slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s := start(t, behindLines(t, "stray", junk...), opts)
	if st := s.Status(); st.State != upstream.Ready {
		t.Fatalf("state = %s (%s)", st.State, st.LastError)
	}
	if got := mustText(t, s, "echo", map[string]any{"text": "clean"}); got != "clean" {
		t.Fatalf("echo = %q", got)
	}
	var dropped []string
	for _, r := range logRecords(t, out.String()) {
		if r["msg"] == "stdout: dropped a line that is not JSON-RPC" {
			dropped = append(dropped, fmt.Sprint(r["line"]))
			if r["line"] == `{"not":"jsonrpc"}` && r["why"] != "JSON, but not a JSON-RPC message" {
				t.Errorf("why = %v", r["why"])
			}
		}
	}
	if strings.Join(dropped, "\n") != strings.Join(junk[:5], "\n") {
		// junk[5] is the sixth line: past the burst of five shown one by one.
		t.Errorf("warned of %q, want the first five of %q", dropped, junk)
	}
}

// TestJunkWarningsAreRateLimited: a server printing junk on stdout gets five
// warnings, one a line, then a count of the rest, not one warning a line.
func TestJunkWarningsAreRateLimited(t *testing.T) {
	lines := make([]string, 100)
	for i := range lines {
		lines[i] = fmt.Sprintf("junk line %d", i+1)
	}
	var out testenv.Buffer
	opts := testserver.Fast()
	opts.Logger = slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s := start(t, behindLines(t, "noisy", lines...), opts)
	if st := s.Status(); st.State != upstream.Ready {
		t.Fatalf("state = %s (%s)", st.State, st.LastError)
	}
	// What the server printed before the answer to initialize has been read; the
	// last summary is written on Close.
	s.Close()
	var one []string
	counted := 0.0
	var last any
	for _, r := range logRecords(t, out.String()) {
		switch r["msg"] {
		case "stdout: dropped a line that is not JSON-RPC":
			one = append(one, fmt.Sprint(r["line"]))
		case "stdout: dropped more lines that are not JSON-RPC":
			n, _ := r["count"].(float64)
			counted += n
			last = r["last"]
		}
	}
	if strings.Join(one, ",") != strings.Join(lines[:5], ",") {
		t.Errorf("lines warned of one by one: %q, want the first five", one)
	}
	if counted != 95 || last != "junk line 100" {
		t.Errorf("the summaries counted %v lines, the last %v; want 95, junk line 100\n%s", counted, last, out.String())
	}
}
