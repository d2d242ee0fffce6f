package agent_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestMain lets this test binary act as the built-in demo servers (the benchmarks run
// the clock server through a hub as demo.Config(os.Executable()) describes it) and as
// the process that crashes mid-turn (TestCrashMidStepRepaired), removes
// the binaries built for the tests, and checks that no goroutine outlived them.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "demo-server" {
		if err := demo.Run(context.Background(), os.Args[2], nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if db := os.Getenv(crashDBEnv); db != "" {
		os.Exit(crashChild(db, os.Getenv(crashModelEnv)))
	}
	os.Exit(testenv.Main(m))
}
