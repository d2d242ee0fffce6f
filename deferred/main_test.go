package deferred

import (
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestMain removes the binaries built for the tests (TestRealServers builds
// switchboard for the demo servers) and, when everything passed, checks that no
// goroutine outlived its test.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
