package host_test

import (
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestMain removes the binaries built for the tests and, when everything passed,
// checks that no goroutine outlived its test.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
