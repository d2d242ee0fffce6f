package host_test

import (
	"os"
	"testing"

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
