package host_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/host/admin"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestAccessFollowsConfig: the Host's access.Policy is the config's profiles, and
// follows the file: a change of a profile holds at once for an Access made before
// it; a file whose profiles do not load changes nothing; and a server a profile
// names cannot be removed without the profile.
func TestAccessFollowsConfig(t *testing.T) {
	a, b := testserver.Stdio(t, "a", "--tools", "only_a"), testserver.Stdio(t, "b", "--tools", "only_b")
	path := filepath.Join(t.TempDir(), "mcp.json")
	servers := `"a": ` + serverJSON(t, a) + `, "b": ` + serverJSON(t, b)
	write := func(profiles string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(`{"mcpServers": {`+servers+`}, "switchboard": {"profiles": {`+profiles+`}}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`"team": {"servers": ["a"], "groups": ["g"]}`)
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
	acc, err := h.Access().For(identity.NewContext(context.Background(), identity.Person{Subject: "gina", Groups: []string{"g"}}), "")
	if err != nil {
		t.Fatal(err)
	}
	// Which of the two servers' own tools gina reaches (the test server has others).
	reached := func() []string {
		var out []string
		for _, tl := range acc.Tools(h.Hub().Tools()) {
			if tl.Name == "only_a" || tl.Name == "only_b" {
				out = append(out, tl.Name)
			}
		}
		return out
	}
	if got := reached(); !slices.Equal(got, []string{"only_a"}) {
		t.Fatalf("gina reaches %v, want [only_a]", got)
	}

	write(`"team": {"servers": ["b"], "groups": ["g"]}`)
	testenv.WaitFor(t, "the changed profile", 30*time.Second, func() bool { return slices.Equal(reached(), []string{"only_b"}) })

	write(`"team": {"servers": ["a", "mail"], "groups": ["g"]}`)
	testenv.WaitFor(t, "the bad profile logged", 30*time.Second, func() bool {
		return strings.Contains(logs.String(), `unknown server \"mail\"`)
	})
	if got := reached(); !slices.Equal(got, []string{"only_b"}) {
		t.Errorf("a file that does not load changed the profiles: gina reaches %v", got)
	}

	write(`"team": {"servers": ["b"], "groups": ["g"]}`)
	_, err = h.RemoveServer(context.Background(), "b")
	var ae *admin.Error
	if !errors.As(err, &ae) || ae.Kind != admin.Invalid || !strings.Contains(err.Error(), `unknown server "b"`) {
		t.Errorf("removing a server a profile names: %v", err)
	}
}
