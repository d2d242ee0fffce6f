package compat_test

import (
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestMain checks that no goroutine outlived the tests.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
