//go:build unix

package upstream_test

import (
	"context"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// attemptCounter is a slog handler that counts failed connection attempts (one
// warning each) in what a supervisor logs.
type attemptCounter struct{ n *atomic.Int64 }

func (h attemptCounter) Enabled(context.Context, slog.Level) bool { return true }
func (h attemptCounter) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "connection attempt failed") {
		h.n.Add(1)
	}
	return nil
}
func (h attemptCounter) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h attemptCounter) WithGroup(string) slog.Handler      { return h }

// countingOptions are testserver.Fast with a logger that counts failed attempts.
func countingOptions() (*upstream.Options, *atomic.Int64) {
	n := new(atomic.Int64)
	o := testserver.Fast()
	o.Logger = slog.New(attemptCounter{n})
	return o, n
}

// untrustedTLS is an HTTPS server whose certificate nobody trusts (httptest's own).
func untrustedTLS(t *testing.T) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake errors we cause
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// TestPermanentErrorsFailAtOnce: an error that the next attempt would meet again
// fails the server after one attempt, not Attempts (3) with backoff between them.
// Not in parallel: it runs programs it has just written, and a parallel test's fork
// may hold one open for writing at that moment ("text file busy").
func TestPermanentErrorsFailAtOnce(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, []byte("\x00\x01\x02 not a program\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	badInterp := filepath.Join(dir, "bad-interpreter")
	if err := os.WriteFile(badInterp, []byte("#!/no/such/interpreter\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	stdio := func(command, cwd string) config.Server {
		return config.Server{Transport: config.Stdio, Command: command, Cwd: cwd, InheritEnv: true, InitTimeout: 5 * time.Second}
	}
	tlsURL := untrustedTLS(t)
	status := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`)
			w.WriteHeader(code)
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/mcp"
	}
	unauthorized, forbidden := status(http.StatusUnauthorized), status(http.StatusForbidden)
	withToken := map[string]string{"Authorization": "Bearer tok-Zq81-not-taken"}
	tests := []struct {
		name string
		cfg  config.Server
		want string // in the last error
	}{
		{"missing command", stdio("no-such-command-xyz", ""), "command not found: no-such-command-xyz"},
		{"missing command path", stdio(filepath.Join(dir, "absent"), ""), "command not found: "},
		{"not executable", stdio(notExec, ""), "permission denied"},
		{"exec format error", stdio(garbage, ""), "exec format error"},
		{"missing interpreter", stdio(badInterp, ""), "no such file or directory"},
		{"missing cwd", stdio(testserver.Build(t), filepath.Join(dir, "gone")), "cwd " + filepath.Join(dir, "gone")},
		{"cwd is a file", stdio(testserver.Build(t), garbage), "cwd " + garbage + ": not a directory"},
		// Relative paths are taken from the config's directory: the error names it.
		{"missing relative command", inProject(stdio("./bin/absent", ""), dir),
			"command not found: ./bin/absent (no file " + filepath.Join(dir, "bin", "absent") + ": a relative command is taken from the config's directory, " + dir + ")"},
		{"missing relative cwd", inProject(stdio(testserver.Build(t), "gone"), dir),
			"cwd gone: " + filepath.Join(dir, "gone") + ": no such file or directory (a relative cwd is taken from the config's directory, " + dir + ")"},
		{"unsupported scheme", config.Server{Transport: config.HTTP, URL: "ftp://127.0.0.1/mcp"}, `unsupported scheme "ftp"`},
		{"untrusted certificate http", config.Server{Transport: config.HTTP, URL: tlsURL}, "certificate signed by unknown authority"},
		{"untrusted certificate sse", config.Server{Transport: config.SSE, URL: tlsURL}, "certificate signed by unknown authority"},
		{"http 401 without credentials", config.Server{Transport: config.HTTP, URL: unauthorized},
			`HTTP 401 Unauthorized: the server wants authorization; give it a token in the server's "headers"`},
		{"http 401 with credentials", config.Server{Transport: config.HTTP, URL: unauthorized, Headers: withToken},
			`HTTP 401 Unauthorized: the server refuses the credentials in the server's "headers"`},
		{"http 403", config.Server{Transport: config.HTTP, URL: forbidden, Headers: withToken}, "HTTP 403 Forbidden: the server refuses access"},
		{"sse 401", config.Server{Transport: config.SSE, URL: unauthorized}, "HTTP 401 Unauthorized: the server wants authorization"},
		{"http 403 without credentials", config.Server{Transport: config.HTTP, URL: forbidden}, "HTTP 403 Forbidden: the server wants authorization"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Name = "broken"
			opts, attempts := countingOptions()
			s := start(t, tt.cfg, opts)
			st := s.Status()
			if st.State != upstream.Failed || !strings.Contains(st.LastError, tt.want) {
				t.Fatalf("state %s, last error %q; want failed with %q", st.State, st.LastError, tt.want)
			}
			if n := attempts.Load(); n != 1 {
				t.Errorf("%d attempts, want 1: %q cannot heal within a series", n, st.LastError)
			}
		})
	}
}

// inProject is s as read from a config in dir.
func inProject(s config.Server, dir string) config.Server {
	s.ProjectDir = dir
	return s
}

// TestTransientErrorsRetry: errors that may heal by themselves still get every attempt.
func TestTransientErrorsRetry(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	unavailable := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	t.Cleanup(unavailable.Close)
	tests := []struct {
		name string
		cfg  config.Server
	}{
		{"connection refused", config.Server{Transport: config.HTTP, URL: refused}},
		{"http 503", config.Server{Transport: config.HTTP, URL: unavailable.URL + "/mcp"}},
		{"process exits", testserver.Stdio(t, "ts", "--crash-at-start")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Name = "flaky"
			opts, attempts := countingOptions()
			s := start(t, tt.cfg, opts)
			if st := s.Status(); st.State != upstream.Failed {
				t.Fatalf("state %s (%s), want failed", st.State, st.LastError)
			}
			if n := attempts.Load(); n != 3 {
				t.Errorf("%d attempts, want 3 (the default Attempts)", n)
			}
		})
	}
}

// TestPermanentFailureRetriedLater: a server failed at once for a missing command is
// still tried again every RetryFailed, and heals once the command is on PATH.
func TestPermanentFailureRetriedLater(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	const name = "switchboard-late-server"
	cfg := config.Server{Name: "late", Transport: config.Stdio, Command: name, InheritEnv: true, InitTimeout: 5 * time.Second}
	opts, attempts := countingOptions()
	opts.RetryFailed = 100 * time.Millisecond
	s := start(t, cfg, opts)
	if st := s.Status(); st.State != upstream.Failed || st.LastError != "command not found: "+name {
		t.Fatalf("status = %+v", st)
	}
	testenv.WaitFor(t, "a retry of the failed server", 10*time.Second, func() bool { return attempts.Load() >= 2 })
	// Written aside and renamed, so that no retry runs a half-written script.
	script := "#!/bin/sh\nexec " + testserver.Build(t) + "\n"
	tmp := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(bin, name)); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "the server to become ready", 10*time.Second, func() bool { return s.State() == upstream.Ready })
}
