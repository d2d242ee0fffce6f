package api_test

import (
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/session/sqlite"
)

// TestReadyStore: /readyz pings the session store: 200 while it answers, 503 naming
// the store's error once it does not (here: closed under the API), and /health
// reports the store "ok", then "error" and "degraded". The PostgreSQL store away and
// back is TestServeReplicas (cmd/switchboard).
func TestReadyStore(t *testing.T) {
	t.Parallel()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	e := start(t, setup{opts: api.Options{Sessions: session.NewJanitor(st, nil)}})
	e.do("GET", "/readyz", nil).want(t, 200, `"ready"`)
	e.do("GET", "/health", nil).want(t, 200, `"status": "ok"`, `"store": "ok"`)

	if err := st.Close(); err != nil { // the Janitor's Close closes it again, harmlessly
		t.Fatal(err)
	}
	e.do("GET", "/readyz", nil).want(t, 503, `"status": "not ready"`, `"store": "ping: session store closed"`)
	e.do("GET", "/health", nil).want(t, 200, `"status": "degraded"`, `"store": "error"`)
}
