package hub_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestMain is the only TestMain of package hub (tests and benchmarks): it removes the
// binaries built for the tests and, when everything passed, checks that no goroutine
// outlived its hub.
func TestMain(m *testing.M) {
	code := m.Run()
	testserver.Cleanup()
	testenv.Cleanup()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
