package sessiontest

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
)

// Parts of a stored session that RunSpoiled has a store's test spoil.
const (
	PartMetadata = "metadata"
	PartLoaded   = "loaded"
	PartMessage  = "message 1" // the second message
)

// RunSpoiled checks, for a store kept in a database, that a row it cannot read back
// is an error that names the session and the part, never a session with the part
// missing. spoil writes JSON that is valid but of the wrong shape into part (one of
// the Part constants) of session id, behind the store's back, with the store's own
// SQL.
func RunSpoiled(t *testing.T, open func(t *testing.T) session.Store, spoil func(t *testing.T, st session.Store, id, part string)) {
	for _, part := range []string{PartMetadata, PartLoaded, PartMessage} {
		t.Run("Spoiled "+part, func(t *testing.T) {
			t.Parallel()
			st := open(t)
			s := &session.Session{
				Metadata: map[string]string{"user": "ana"},
				Loaded:   []string{"weather__get"},
				Messages: []llm.Message{text(llm.RoleUser, "hi"), text(llm.RoleAssistant, "hello")},
			}
			mustCreate(t, st, s)
			spoil(t, st, s.ID, part)
			if got, err := st.Get(t.Context(), s.ID); err == nil || !strings.Contains(err.Error(), "get "+s.ID+": "+part+": ") {
				t.Errorf("Get of a session with its %s spoiled: %+v, %v; want an error naming %q", part, got, err, "get "+s.ID+": "+part)
			}
			if part != PartMetadata {
				return
			}
			if got, err := st.List(t.Context()); err == nil || !strings.Contains(err.Error(), "list: "+s.ID+": metadata: ") {
				t.Errorf("List with a session's metadata spoiled: %+v, %v; want an error naming %q", got, err, "list: "+s.ID+": metadata")
			}
		})
	}
}
