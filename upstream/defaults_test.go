package upstream

import (
	"log/slog"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

// TestOptionsDefaults checks that zero Options take every default from the config
// package, where each is declared once, and that set fields are kept.
func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	got := (*Options)(nil).withDefaults()
	got.Logger, got.ClientInfo = nil, nil
	want := Options{
		Attempts:            config.DefaultAttempts,
		BackoffBase:         config.DefaultBackoffBase,
		BackoffMax:          config.DefaultBackoffMax,
		Heartbeat:           config.DefaultHeartbeat,
		HeartbeatMisses:     config.DefaultHeartbeatMisses,
		RetryFailed:         config.DefaultRetryFailed,
		StopGrace:           config.DefaultStopGrace,
		ListChangedDebounce: config.DefaultListChangedDebounce,
		ProtocolVersion:     config.DefaultProtocolVersion,
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
