package hub_test

import (
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestMain is the only TestMain of package hub (tests and benchmarks): it removes the
// binaries built for the tests and, when everything passed, checks that no goroutine
// outlived its hub.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
