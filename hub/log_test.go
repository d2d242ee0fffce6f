//go:build unix

package hub_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// logStates are the states the state entries of a log entered, joined by spaces.
func logStates(l *upstream.Log) string {
	es, _ := l.Entries(0, 0)
	var out []string
	for _, e := range es {
		if e.Kind == upstream.LogState {
			out = append(out, string(e.State))
		}
	}
	return strings.Join(out, " ")
}

// A server's log goes on across Restart and Replace (the supervisor is new, the log
// the same), masks the config's secrets, and ends when the server is removed.
func TestLog(t *testing.T) {
	t.Parallel()
	a := testserver.Stdio(t, "a")
	a.Env = map[string]string{"A_TOKEN": "tok-a-0123456789abcdef"}
	h, _ := startHub(t, cfgOf(a, testserver.Stdio(t, "b")), nil)
	l, ok := h.Log("a")
	if !ok {
		t.Fatal("no log of a")
	}
	callText(t, h, exposed(t, h, "a", "stderr"), map[string]any{"text": "a says tok-a-0123456789abcdef"})
	testenv.WaitFor(t, "a's line in its log", 5*time.Second, func() bool {
		es, _ := l.Entries(0, 0)
		for _, e := range es {
			if e.Kind == upstream.LogStderr && strings.HasPrefix(e.Text, "a says") {
				if strings.Contains(e.Text, "tok-a") {
					t.Fatalf("the secret is in the log: %q", e.Text)
				}
				return true
			}
		}
		return false
	})

	if err := h.Restart("a"); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "a ready again", 10*time.Second, func() bool { return stateOf(h, "a") == upstream.Ready })
	if again, _ := h.Log("a"); again != l {
		t.Fatal("Restart gave a another log")
	}
	if got, want := logStates(l), "connecting ready closed connecting ready"; got != want {
		t.Errorf("states in a's log after Restart: %q, want %q", got, want)
	}
	if err := h.Replace(a); err != nil {
		t.Fatal(err)
	}
	if again, _ := h.Log("a"); again != l {
		t.Fatal("Replace gave a another log")
	}

	if err := h.Remove("a"); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.Log("a"); ok {
		t.Error("a removed still has a log")
	}
	if _, ok := h.Log("nope"); ok {
		t.Error("an unknown server has a log")
	}
	if lb, ok := h.Log("b"); !ok || lb == l {
		t.Errorf("b's log: %v, the same as a's: %v", ok, lb == l)
	}
}
