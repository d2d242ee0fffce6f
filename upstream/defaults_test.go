package upstream

import (
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

// TestOptionsDefaults checks that zero Options take every default of defaults.go,
// and that set fields are kept.
func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	got := (*Options)(nil).withDefaults()
	got.Logger, got.ClientInfo = nil, nil
	want := Options{
		Attempts:            DefaultAttempts,
		BackoffBase:         DefaultBackoffBase,
		BackoffMax:          DefaultBackoffMax,
		Heartbeat:           DefaultHeartbeat,
		HeartbeatMisses:     DefaultHeartbeatMisses,
		RetryFailed:         DefaultRetryFailed,
		StopGrace:           DefaultStopGrace,
		ListChangedDebounce: DefaultListChangedDebounce,
		ProtocolVersion:     DefaultProtocolVersion,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("nil Options: got %+v, want %+v", got, want)
	}

	set := Options{Attempts: 7, BackoffBase: 3, BackoffMax: 4, Heartbeat: -1, HeartbeatMisses: 5, RetryFailed: -1,
		StopGrace: 6, ListChangedDebounce: 8, ProtocolVersion: "2025-06-18",
		Logger: slog.New(slog.DiscardHandler), ClientInfo: &mcp.Implementation{Name: "x"}}
	if got := set.withDefaults(); !reflect.DeepEqual(got, set) {
		t.Errorf("set Options changed: got %+v, want %+v", got, set)
	}
}

// TestSupervisorTimeouts: a server's unset "timeout" and "toolTimeout" are the
// defaults, set ones are kept.
func TestSupervisorTimeouts(t *testing.T) {
	s := New(config.Server{Name: "unset", Transport: config.Stdio, Command: "true"}, nil)
	t.Cleanup(func() { _ = s.Close() })
	if s.InitTimeout() != DefaultInitTimeout || s.ToolTimeout() != DefaultToolTimeout {
		t.Errorf("unset: %v, %v; want %v, %v", s.InitTimeout(), s.ToolTimeout(), DefaultInitTimeout, DefaultToolTimeout)
	}
	set := New(config.Server{Name: "set", Transport: config.Stdio, Command: "true", InitTimeout: time.Second, ToolTimeout: 2 * time.Second}, nil)
	t.Cleanup(func() { _ = set.Close() })
	if set.InitTimeout() != time.Second || set.ToolTimeout() != 2*time.Second {
		t.Errorf("set: %v, %v; want 1s, 2s", set.InitTimeout(), set.ToolTimeout())
	}
}
