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
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/redact"
	"github.com/switchboard-mcp/switchboard/tool"
)

// serverJSON is srv as an mcpServers entry.
func serverJSON(t *testing.T, srv config.Server) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"command": srv.Command, "args": srv.Args, "env": srv.Env})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A Host follows its config file: a server added to it joins the catalog, one
// removed leaves it, without a restart; a reload on request applies at once; a file
// that does not load changes nothing.
func TestFollow(t *testing.T) {
	a, b := testserver.Stdio(t, "a", "--tools", "only_a"), testserver.Stdio(t, "b", "--tools", "only_b")
	path := filepath.Join(t.TempDir(), "mcp.json")
	write := func(servers string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(`{"mcpServers": {`+servers+`}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`"a": ` + serverJSON(t, a))
	cfg, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testenv.Buffer{}
	h := host.New(cfg, &host.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	t.Cleanup(func() { h.Close() })
	ctx := context.Background()
	if err := h.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	reload := make(chan struct{})
	h.Follow(path, &host.FollowOptions{Every: 20 * time.Millisecond, Reload: reload})
	has := func(name string) func() bool {
		return func() bool { _, ok := h.Hub().Lookup(name); return ok }
	}
	write(`"a": ` + serverJSON(t, a) + `, "b": ` + serverJSON(t, b))
	testenv.WaitFor(t, "b's tool after the file changed", 30*time.Second, has("only_b"))

	write(`"b": ` + serverJSON(t, b) + `, "broken": {}`)
	testenv.WaitFor(t, "the broken file logged", 30*time.Second, func() bool {
		return strings.Contains(logs.String(), "config not reloaded: the servers stay as they are") &&
			strings.Contains(logs.String(), "broken")
	})
	if !has("only_a")() {
		t.Fatalf("a file that does not load removed a: %v", h.Hub().Tools())
	}

	write(`"b": ` + serverJSON(t, b))
	reload <- struct{}{}
	testenv.WaitFor(t, "a gone after the reload", 30*time.Second, func() bool { return !has("only_a")() })
}

// The model, the store and the embeddings say what is wrong with their settings as
// a *SettingsError, which the CLI answers with exit 2.
func TestSettingsErrors(t *testing.T) {
	t.Setenv("HOST_TEST_KEY", "")
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts host.Options
		use  func(*host.Host) error
		want string
	}{
		{"no model", host.Options{}, func(h *host.Host) error { _, err := h.Model(); return err }, "no model configured"},
		{"no key", host.Options{Model: &config.ModelSettings{Name: "gpt", APIKeyEnv: "HOST_TEST_KEY"}},
			func(h *host.Host) error { _, err := h.Model(); return err }, "$HOST_TEST_KEY is not set"},
		{"store path", host.Options{Sessions: &config.SessionSettings{Path: filepath.Join(blocker, "sessions.db")}},
			func(h *host.Host) error { _, err := h.Sessions(context.Background()); return err }, "not a directory"},
		{"postgres without a DSN", host.Options{Sessions: &config.SessionSettings{Store: "postgres"}},
			func(h *host.Host) error { _, err := h.Sessions(context.Background()); return err }, "needs a connection string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := host.New(&config.Config{}, &c.opts)
			defer h.Close()
			err := c.use(h)
			var se *host.SettingsError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v (%T), want a SettingsError saying %q", err, err, c.want)
			}
		})
	}
	h := host.New(&config.Config{}, nil)
	defer h.Close()
	if _, err := h.Model(); !errors.Is(err, host.ErrNoModel) {
		t.Errorf("no model: %v, want ErrNoModel", err)
	}
}

// TestNoModelInLibraryTerms: a Host says what is missing in its own terms, the
// config's settings (its log and the API's 503 said "pass --model", a flag of the
// CLI's); a program's own way (Options.ModelHow) is added when it gives one.
func TestNoModelInLibraryTerms(t *testing.T) {
	t.Setenv("HOST_TEST_KEY", "")
	logs := &testenv.Buffer{}
	h := host.New(&config.Config{}, &host.Options{Logger: slog.New(slog.NewTextHandler(logs, nil)), DataDir: t.TempDir(),
		Sessions: &config.SessionSettings{Store: "memory"}})
	t.Cleanup(func() { h.Close() })
	if _, err := h.API(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "chat turns are off: no model configured") || strings.Contains(logs.String(), "--") {
		t.Errorf("the log of a library without a model:\n%s", logs)
	}
	h2 := host.New(&config.Config{}, &host.Options{Model: &config.ModelSettings{Name: "gpt", APIKeyEnv: "HOST_TEST_KEY"}})
	t.Cleanup(func() { h2.Close() })
	if _, err := h2.Model(); err == nil || strings.Contains(err.Error(), "--") {
		t.Errorf("no key: %v, want it in the library's terms", err)
	}
	h3 := host.New(&config.Config{}, &host.Options{ModelHow: "pass --model"})
	t.Cleanup(func() { h3.Close() })
	if _, err := h3.Model(); !errors.Is(err, host.ErrNoModel) || !strings.HasSuffix(err.Error(), ", or pass --model") {
		t.Errorf("with ModelHow: %v", err)
	}
}

// What the Host learns is registered with the redactor it is given: the config's
// secrets (a failed result quoting one comes back masked), and the model's key.
func TestSecrets(t *testing.T) {
	const secret, key = "vault-key-Rt5s9Wq", "model-key-Pq83zZw"
	t.Setenv("HOST_TEST_MODEL_KEY", key)
	srv := testserver.Stdio(t, "vault")
	srv.Env = map[string]string{"VAULT_KEY": secret}
	var red redact.Redactor
	h := host.New(&config.Config{Servers: []config.Server{srv}}, &host.Options{Redactor: &red,
		Model: &config.ModelSettings{Name: "m", APIKeyEnv: "HOST_TEST_MODEL_KEY", BaseURL: "http://127.0.0.1:9/v1"}})
	defer h.Close()
	if err := h.Start(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	res, err := h.Hub().Call(context.Background(), "fail", json.RawMessage(`{"text": "refused $VAULT_KEY"}`))
	if err != nil || !res.IsError || tool.Text(res) != "refused "+redact.Mask {
		t.Errorf("failed result %q, %v; want the key masked", tool.Text(res), err)
	}
	if _, err := h.Model(); err != nil {
		t.Fatal(err)
	}
	if got := red.String("sent " + key); strings.Contains(got, key) {
		t.Errorf("the model's key is not registered: %q", got)
	}
}
