package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/host/admin"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// editedFile is a config file with comments, a trailing comma and odd spacing;
// %s is server a's entry.
const editedFile = `// Team servers. Keep this comment.
{
  "mcpServers": {
    /* the first */
    "a": %s,   // a's line
  },
}
`

// startEdited starts a Host over a config file holding server a, following it,
// and returns the Host, the file's path and the logs.
func startEdited(t *testing.T, a config.Server) (*host.Host, string, *testenv.Buffer) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(strings.Replace(editedFile, "%s", serverJSON(t, a), 1)), 0o640); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testenv.Buffer{}
	h := host.New(cfg, &host.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	t.Cleanup(func() { h.Close() })
	if err := h.Start(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	h.Follow(path, &host.FollowOptions{Every: 10 * time.Millisecond})
	return h, path, logs
}

func state(h *host.Host, name string) upstream.State {
	for _, st := range h.Hub().Status() {
		if st.Name == name {
			return st.State
		}
	}
	return ""
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEditServers: a server added runs at once and is in the file, whose comments
// stay; a patch disables it, then filters its tools; removed, it stops and the
// file is back to what it was. The follower reloads none of it.
func TestEditServers(t *testing.T) {
	a, b := testserver.Stdio(t, "a", "--tools", "only_a"), testserver.Stdio(t, "b", "--tools", "only_b,other_b")
	h, path, logs := startEdited(t, a)
	before := readFile(t, path)
	ctx := context.Background()
	has := func(tool string) bool { _, ok := h.Hub().Lookup(tool); return ok }

	res, err := h.AddServer(ctx, "b", json.RawMessage(serverJSON(t, b)))
	if err != nil || !res.Saved || res.Source != path {
		t.Fatalf("AddServer: %+v, %v", res, err)
	}
	testenv.WaitFor(t, "b's tools", 30*time.Second, func() bool { return has("only_b") && has("other_b") })
	file := readFile(t, path)
	if !strings.HasPrefix(file, strings.TrimSuffix(before, "  },\n}\n")) || !strings.Contains(file, `"b": {`) {
		t.Fatalf("file after the add:\n%s", file)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after the add: %v", fi.Mode().Perm())
	}

	if _, err := h.PatchServer(ctx, "b", json.RawMessage(`{"disabled": true}`)); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "b disabled", 30*time.Second, func() bool { return state(h, "b") == upstream.Disabled && !has("only_b") })
	if !strings.Contains(readFile(t, path), `"disabled": true`) {
		t.Errorf("file after the patch:\n%s", readFile(t, path))
	}

	if _, err := h.PatchServer(ctx, "b", json.RawMessage(`{"disabled": null, "tools": {"deny": ["other_b"]}}`)); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "b back without other_b", 30*time.Second, func() bool { return has("only_b") && !has("other_b") })

	if _, err := h.RemoveServer(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if state(h, "b") != "" || has("only_b") {
		t.Errorf("b still there: %v", h.Hub().Status())
	}
	if got := readFile(t, path); got != before {
		t.Errorf("file after add, patches and remove:\n%s\nwant it as it was:\n%s", got, before)
	}
	if !has("only_a") {
		t.Error("a stopped")
	}

	// The follower applied none of the edits again: the one reload it makes is of
	// a change of the file's own.
	if err := os.WriteFile(path, []byte(strings.Replace(before, `"a"`, `"a2"`, 1)), 0o640); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "a2 after the file changed", 30*time.Second, func() bool { return state(h, "a2") != "" })
	if n := strings.Count(logs.String(), "reloading config"); n != 1 {
		t.Errorf("the follower reloaded %d times, want once:\n%s", n, logs)
	}
}

// TestEditErrors: each refusal is typed, names the field or the servers there are,
// and leaves the file as it was.
func TestEditErrors(t *testing.T) {
	h, path, _ := startEdited(t, testserver.Stdio(t, "a"))
	before := readFile(t, path)
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		do    func() error
		kind  admin.Kind
		field string
		says  string
	}{
		{"exists", func() error { _, err := h.AddServer(ctx, "a", json.RawMessage(`{"command": "x"}`)); return err }, admin.Exists, "", "exists already"},
		{"patch unknown", func() error { _, err := h.PatchServer(ctx, "nope", json.RawMessage(`{}`)); return err }, admin.NotFound, "", `no server "nope"`},
		{"remove unknown", func() error { _, err := h.RemoveServer(ctx, "nope"); return err }, admin.NotFound, "", "(it has a)"},
		{"no command", func() error { _, err := h.AddServer(ctx, "x", json.RawMessage(`{"args": ["y"]}`)); return err }, admin.Invalid, "command", `"command" or "url" is required`},
		{"command type", func() error { _, err := h.AddServer(ctx, "x", json.RawMessage(`{"command": 5}`)); return err }, admin.Invalid, "command", "command: want a string"},
		{"bad url", func() error { _, err := h.AddServer(ctx, "x", json.RawMessage(`{"url": "ftp://x"}`)); return err }, admin.Invalid, "url", "url: "},
		{"bad type", func() error {
			_, err := h.AddServer(ctx, "x", json.RawMessage(`{"command": "x", "type": "pigeon"}`))
			return err
		}, admin.Invalid, "type", `unknown transport "pigeon"`},
		{"patch breaks it", func() error { _, err := h.PatchServer(ctx, "a", json.RawMessage(`{"command": null}`)); return err }, admin.Invalid, "command", "required"},
		{"gateway's name", func() error {
			_, err := h.AddServer(ctx, "switchboard-2", json.RawMessage(`{"command": "x"}`))
			return err
		}, admin.Invalid, "name", `begin with "switchboard"`},
		{"odd name", func() error { _, err := h.AddServer(ctx, "a/b", json.RawMessage(`{"command": "x"}`)); return err }, admin.Invalid, "name", "use letters, digits"},
		{"not an object", func() error { _, err := h.AddServer(ctx, "x", json.RawMessage(`[1]`)); return err }, admin.Invalid, "", "JSON object"},
		{"typo", func() error {
			_, err := h.AddServer(ctx, "x", json.RawMessage(`{"command": "x", "disabeld": true}`))
			return err
		}, admin.Invalid, "disabeld", `disabeld: unknown field: did you mean "disabled"?`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.do()
			var ee *admin.Error
			if !errors.As(err, &ee) || ee.Kind != c.kind || ee.Field != c.field || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("err = %v (%+v), want kind %d, field %q, saying %q", err, ee, c.kind, c.field, c.says)
			}
			if c.kind == admin.NotFound && strings.Join(ee.Servers, ",") != "a" {
				t.Errorf("servers named: %v", ee.Servers)
			}
			if got := readFile(t, path); got != before {
				t.Errorf("file changed:\n%s", got)
			}
		})
	}

	// A file that does not load is to be fixed first; it stays as it is.
	broken := before + "}"
	if err := os.WriteFile(path, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := h.AddServer(ctx, "x", json.RawMessage(`{"command": "x"}`))
	var ee *admin.Error
	if !errors.As(err, &ee) || ee.Kind != admin.ConfigInvalid || !strings.Contains(err.Error(), "fix it first") {
		t.Errorf("editing a broken file: %v", err)
	}
	if got := readFile(t, path); got != broken {
		t.Errorf("broken file changed:\n%s", got)
	}
}

// TestEditWarnings: an edit's result carries the warnings about its server, which
// name their place in the file.
func TestEditWarnings(t *testing.T) {
	h, path, _ := startEdited(t, testserver.Stdio(t, "a"))
	res, err := h.AddServer(context.Background(), "x", json.RawMessage(`{"command": "x", "colour": "red", "disabled": true}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], path+":") || !strings.HasSuffix(res.Warnings[0], ": mcpServers.x.colour: unknown field (ignored)") {
		t.Errorf("warnings = %q, want the unknown field's, at its place in %s", res.Warnings, path)
	}
}

// TestEditWithoutFile: a config without a file (the built-in demo's) changes at run
// time only; the servers a change leaves alone keep running.
func TestEditWithoutFile(t *testing.T) {
	a := testserver.Stdio(t, "a", "--tools", "only_a")
	a.Env = map[string]string{"A_TOKEN": "hunter2"}
	h := host.New(&config.Config{Source: "<built-in demo>", Servers: []config.Server{a}}, nil)
	t.Cleanup(func() { h.Close() })
	ctx := context.Background()
	if err := h.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	started := h.Hub().Status()[0].Since
	b := testserver.Stdio(t, "b", "--tools", "only_b")
	res, err := h.AddServer(ctx, "b", json.RawMessage(serverJSON(t, b)))
	if err != nil || res.Saved {
		t.Fatalf("AddServer: %+v, %v (want not saved)", res, err)
	}
	testenv.WaitFor(t, "b ready", 30*time.Second, func() bool { return state(h, "b") == upstream.Ready })
	if _, err := h.PatchServer(ctx, "b", json.RawMessage(`{"disabled": true}`)); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "b disabled", 30*time.Second, func() bool { return state(h, "b") == upstream.Disabled })
	if st := h.Hub().Status()[0]; st.Name != "a" || st.State != upstream.Ready || !st.Since.Equal(started) {
		t.Errorf("a restarted or stopped: %+v", st)
	}
	entry, saved, err := h.ServerConfig("a")
	if err != nil || saved || !strings.Contains(string(entry), `"A_TOKEN":"********"`) || strings.Contains(string(entry), "hunter2") {
		t.Errorf("ServerConfig(a) = %s, %v, %v", entry, saved, err)
	}
	if _, err := h.RemoveServer(ctx, "b"); err != nil || state(h, "b") != "" {
		t.Errorf("RemoveServer: %v, state %q", err, state(h, "b"))
	}
}
