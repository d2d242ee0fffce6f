package session_test

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/session/sessiontest"
)

func TestMemory(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) session.Store {
		st := session.NewMemory()
		t.Cleanup(func() { _ = st.Close() })
		return st
	})
}

func TestMemoryUsage(t *testing.T) {
	sessiontest.RunUsage(t, func(t *testing.T) session.UsageStore {
		st := session.NewMemory()
		t.Cleanup(func() { _ = st.Close() })
		return st
	})
}
