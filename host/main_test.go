package host_test

import (
	"context"
	"net"
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestMain removes the binaries built for the tests and, when everything passed,
// checks that no goroutine outlived its test; it stops the PostgreSQL server the
// tests started, if any.
func TestMain(m *testing.M) {
	code := testenv.Main(m)
	testenv.StopPostgres()
	os.Exit(code)
}

// serveAPI serves srv on a free loopback port until the test ends (then shuts it
// down, which must succeed) and returns its base URL.
func serveAPI(t *testing.T, srv *api.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-served
	})
	return "http://" + ln.Addr().String()
}
