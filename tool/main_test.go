package tool_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// TestMain lets this test binary act as the built-in demo servers, so examples can
// start real MCP servers with demo.Config(os.Executable()).
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "demo-server" {
		if err := demo.Run(context.Background(), os.Args[2], nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
