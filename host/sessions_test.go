package host_test

import (
	"errors"
	"testing"

	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/session"
)

// TestSessionNames: the session ids, errors and stores a program names through host
// are session's own: a store's error matches host's, and an id is checked alike.
func TestSessionNames(t *testing.T) {
	if !errors.Is(session.NotFound("s1"), host.ErrSessionNotFound) || !errors.Is(session.Busy("s1"), host.ErrSessionBusy) {
		t.Error("a store's not-found and busy errors are not host's")
	}
	if errors.Is(session.NotFound("s1"), host.ErrSessionBusy) {
		t.Error("not found reads as busy")
	}
	for id, ok := range map[string]bool{"work-1": true, "": false, "..": false, "a/b": false} {
		if err := host.CheckSessionID(id); (err == nil) != ok {
			t.Errorf("CheckSessionID(%q) = %v, want ok %v", id, err, ok)
		}
	}
	var _ host.SessionStore = session.NewMemory()
}
