package api_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// editFile is a config file with comments around the demo clock server (%s).
const editFile = `// The team's servers.
{
  "mcpServers": {
    // what time is it
    "clock": %s, // keep me
  },
}
`

// startFileHost serves the API of a host.Host over a config file that holds the
// clock server, following it, as switchboard serve does; it returns the file's path.
func startFileHost(t *testing.T, opts api.Options) (*env, string) {
	t.Helper()
	clock := clockServer(t)
	entry, err := json.Marshal(map[string]any{"command": clock.Command, "args": clock.Args})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(strings.Replace(editFile, "%s", string(entry), 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testenv.Buffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := host.New(cfg, &host.Options{Logger: log, DataDir: t.TempDir(), Sessions: &config.SessionSettings{Store: "memory"}})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := h.Start(ctx, nil); err != nil {
		h.Close()
		t.Fatalf("host start: %v", err)
	}
	h.Follow(path, &host.FollowOptions{Every: 20 * time.Millisecond})
	srv, err := h.API(ctx, &opts)
	if err != nil {
		h.Close()
		t.Fatalf("host.API: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, url: "http://" + ln.Addr().String(), hub: h.Hub(), srv: srv, logs: logs, token: opts.Token, done: make(chan error, 1)}
	go func() { e.done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		e.shutdown(5 * time.Second)
		h.Close()
		if t.Failed() {
			t.Logf("log:\n%s", logs)
		}
	})
	return e, path
}

func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// serverState is the state GET /v1/servers/{name} reports, "" for a 404.
func (e *env) serverState(name string) string {
	r := e.do("GET", "/v1/servers/"+name, nil)
	if r.status == http.StatusNotFound {
		return ""
	}
	var st struct {
		State string `json:"state"`
	}
	r.decode(e.t, &st)
	return st.State
}

// hasTool reports whether GET /v1/tools lists tool.
func (e *env) hasTool(tool string) bool {
	var tools []struct {
		Name string `json:"name"`
	}
	e.do("GET", "/v1/tools", nil).decode(e.t, &tools)
	for _, t := range tools {
		if t.Name == tool {
			return true
		}
	}
	return false
}

// TestServerEdits: a server added over the API runs at once, its tools join the
// catalog and the file has it with its comments intact; a patch disables it, then
// filters its tools; deleted, it is gone, its process ended, and the file is as it
// was.
func TestServerEdits(t *testing.T) {
	t.Parallel()
	e, path := startFileHost(t, api.Options{})
	before := fileText(t, path)
	pidfile := filepath.Join(t.TempDir(), "pid")
	ts := testserver.Stdio(t, "ts", "--tools", "frob_a,frob_b", "--pidfile", pidfile)

	r := e.do("POST", "/v1/servers", map[string]any{"name": "ts", "command": ts.Command, "args": ts.Args,
		"env": map[string]string{"TS_TOKEN": "${TS_TOKEN}", "TS_PLAIN": "hunter2"}})
	r.want(t, http.StatusCreated, `"name": "ts"`, `"saved": true`)
	if loc := r.header.Get("Location"); loc != "/v1/servers/ts" {
		t.Errorf("Location %q", loc)
	}
	testenv.WaitFor(t, "ts ready with its tools", 30*time.Second, func() bool {
		return e.serverState("ts") == "ready" && e.hasTool("frob_a") && e.hasTool("frob_b")
	})
	file := fileText(t, path)
	for _, want := range []string{"// The team's servers.", "// what time is it", "// keep me", `"ts": {`, `"TS_TOKEN": "${TS_TOKEN}"`} {
		if !strings.Contains(file, want) {
			t.Errorf("the file has no %q:\n%s", want, file)
		}
	}

	// The entry as the file has it: the reference shown, the value masked.
	r = e.do("GET", "/v1/servers/ts/config", nil)
	r.want(t, http.StatusOK, `"TS_TOKEN": "${TS_TOKEN}"`, `"TS_PLAIN": "********"`, `"saved": true`)
	if strings.Contains(r.body, "hunter2") {
		t.Errorf("the config shows a secret: %s", r.body)
	}

	// Sent back as shown, a masked value stays as it was.
	e.do("PATCH", "/v1/servers/ts", `{"disabled": true, "env": {"TS_PLAIN": "********"}}`).want(t, http.StatusOK, `"saved": true`)
	testenv.WaitFor(t, "ts disabled", 30*time.Second, func() bool { return e.serverState("ts") == "disabled" && !e.hasTool("frob_a") })
	if file := fileText(t, path); !strings.Contains(file, `"disabled": true`) || !strings.Contains(file, `"TS_PLAIN": "hunter2"`) {
		t.Errorf("the file after the patch:\n%s", file)
	}

	e.do("PATCH", "/v1/servers/ts", `{"disabled": null, "tools": {"deny": ["frob_b"]}}`).want(t, http.StatusOK)
	testenv.WaitFor(t, "ts back without frob_b", 30*time.Second, func() bool {
		return e.serverState("ts") == "ready" && e.hasTool("frob_a") && !e.hasTool("frob_b")
	})
	pid := testserver.ReadPID(t, pidfile)

	r = e.do("DELETE", "/v1/servers/ts", nil)
	r.want(t, http.StatusNoContent)
	if e.serverState("ts") != "" || e.hasTool("frob_a") {
		t.Error("ts still there after DELETE")
	}
	if runtime.GOOS == "linux" {
		testenv.WaitFor(t, "ts's process gone", 10*time.Second, func() bool { return !testserver.ProcessAlive(pid) })
	}
	if got := fileText(t, path); got != before {
		t.Errorf("the file after add, patches and delete:\n%s\nwant it as it was:\n%s", got, before)
	}
	if e.serverState("clock") != "ready" {
		t.Error("clock is not ready")
	}
}

// TestServerEditErrors: 400 naming the field, 404 naming the servers there are, 409
// for a name taken or a file to fix first, 405 for another method, and nothing
// written.
func TestServerEditErrors(t *testing.T) {
	t.Parallel()
	e, path := startFileHost(t, api.Options{})
	before := fileText(t, path)
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		subs                     []string
	}{
		{"no name", "POST", "/v1/servers", `{"command": "x"}`, 400, []string{`"field": "name"`}},
		{"bad command", "POST", "/v1/servers", `{"name": "x", "command": 5}`, 400, []string{`"field": "command"`, "want a string"}},
		{"neither", "POST", "/v1/servers", `{"name": "x", "args": []}`, 400, []string{`"field": "command"`, `\"command\" or \"url\" is required`}},
		{"bad url", "POST", "/v1/servers", `{"name": "x", "url": "ftp://h"}`, 400, []string{`"field": "url"`}},
		{"bad type", "POST", "/v1/servers", `{"name": "x", "command": "x", "type": "pigeon"}`, 400, []string{`"field": "type"`, "pigeon"}},
		{"gateway's name", "POST", "/v1/servers", `{"name": "switchboard", "command": "x"}`, 400, []string{`"field": "name"`}},
		{"not an object", "POST", "/v1/servers", `[1]`, 400, []string{`"bad_json"`}},
		{"malformed", "POST", "/v1/servers", `{"name": `, 400, []string{`"bad_json"`}},
		{"taken", "POST", "/v1/servers", `{"name": "clock", "command": "x"}`, 409, []string{`"exists"`, "exists already"}},
		{"patch unknown", "PATCH", "/v1/servers/nope", `{"disabled": true}`, 404, []string{`"not_found"`, `"clock"`}},
		{"patch renames", "PATCH", "/v1/servers/clock", `{"name": "clock2"}`, 400, []string{`"field": "name"`}},
		{"patch breaks it", "PATCH", "/v1/servers/clock", `{"command": null}`, 400, []string{`"field": "command"`}},
		{"patch bad tools", "PATCH", "/v1/servers/clock", `{"tools": {"allow": "x"}}`, 400, []string{`"field": "tools.allow"`}},
		{"delete unknown", "DELETE", "/v1/servers/nope", "", 404, []string{`"clock"`}},
		{"config unknown", "GET", "/v1/servers/nope/config", "", 404, []string{`"clock"`}},
		{"method", "PUT", "/v1/servers/clock", `{}`, 405, nil},
		{"method on the list", "PATCH", "/v1/servers", `{}`, 405, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var body any
			if c.body != "" {
				body = c.body
			}
			e.do(c.method, c.path, body).want(t, c.status, c.subs...)
			if got := fileText(t, path); got != before {
				t.Errorf("the file changed:\n%s", got)
			}
		})
	}

	broken := before + "{"
	if err := os.WriteFile(path, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	e.do("POST", "/v1/servers", `{"name": "x", "command": "x"}`).want(t, http.StatusConflict, `"config_invalid"`, "fix it first")
	if got := fileText(t, path); got != broken {
		t.Errorf("the broken file changed:\n%s", got)
	}
}

// TestServerEditAccess: with identities, only admins change the servers (403
// otherwise), and a request without a token is a 401; with a token, the token.
// An API without Options.Servers has no such routes: 405 with the methods there are.
func TestServerEditAccess(t *testing.T) {
	t.Parallel()
	e, path := startFileHost(t, api.Options{Identify: testPeople})
	before := fileText(t, path)
	e.do("POST", "/v1/servers", `{"name": "x", "command": "x"}`).want(t, http.StatusUnauthorized)
	for _, req := range [][2]string{{"POST", "/v1/servers"}, {"PATCH", "/v1/servers/clock"}, {"DELETE", "/v1/servers/clock"}, {"GET", "/v1/servers/clock/config"}} {
		e.do(req[0], req[1], `{"name": "x", "command": "x"}`, "Authorization: Bearer alice-token").want(t, http.StatusForbidden, "only an admin")
	}
	if got := fileText(t, path); got != before {
		t.Errorf("the file changed:\n%s", got)
	}
	e.do("PATCH", "/v1/servers/clock", `{"description": "the time"}`, "Authorization: Bearer carol-token").want(t, http.StatusOK, `"name": "clock"`)
	if !strings.Contains(fileText(t, path), `"description": "the time"`) {
		t.Errorf("the admin's patch is not in the file:\n%s", fileText(t, path))
	}

	tok, _ := startFileHost(t, api.Options{Token: "s3cret"})
	tok.do("DELETE", "/v1/servers/clock", nil, "Authorization: Bearer wrong").want(t, http.StatusUnauthorized)
	tok.do("GET", "/v1/servers/clock/config", nil).want(t, http.StatusOK, `"config"`)

	plain := start(t, setup{})
	plain.do("POST", "/v1/servers", `{"name": "x", "command": "x"}`).want(t, http.StatusMethodNotAllowed, `"method_not_allowed"`)
	plain.do("DELETE", "/v1/servers/clock", nil).want(t, http.StatusMethodNotAllowed)
	plain.do("GET", "/v1/servers/clock/config", nil).want(t, http.StatusNotFound)
}

// TestServerEditDemo: with the built-in demo config (no file), a change applies
// at run time and says it is not saved.
func TestServerEditDemo(t *testing.T) {
	t.Parallel()
	e := startHost(t, []config.Server{clockServer(t)}, api.Options{})
	ts := testserver.Stdio(t, "ts", "--tools", "frob_demo")
	e.do("POST", "/v1/servers", map[string]any{"name": "ts", "command": ts.Command, "args": ts.Args}).want(t, http.StatusCreated, `"saved": false`)
	testenv.WaitFor(t, "ts's tool", 30*time.Second, func() bool { return e.hasTool("frob_demo") })
	e.do("PATCH", "/v1/servers/clock", `{"disabled": true}`).want(t, http.StatusOK, `"saved": false`, `"state": "disabled"`)
	e.do("GET", "/v1/servers/clock/config", nil).want(t, http.StatusOK, `"disabled": true`, `"saved": false`)
	e.do("DELETE", "/v1/servers/ts", nil).want(t, http.StatusNoContent)
	if e.hasTool("frob_demo") {
		t.Error("ts's tool after DELETE")
	}
}
