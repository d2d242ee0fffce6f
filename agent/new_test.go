package agent_test

import (
	"fmt"
	"testing"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
)

// TestNew: New takes what an agent cannot do without, the model and the store, as
// arguments, and the rest as *Options, nil meaning the defaults (a turn runs, its
// session kept in the store given); a nil model or store is a panic at New that
// names it, not a nil dereference at the first turn.
func TestNew(t *testing.T) {
	model, srv := backends[0].start(t, fakellm.Queue(fakellm.Reply{Text: "Hello."}))
	store := newStore(t)
	id := newSession(t, store)
	turn, err := agent.New(model, store, nil).Run(testCtx(t), id, "hi")
	if err != nil {
		t.Fatal(err)
	}
	if turn.Answer != "Hello." || len(srv.Requests()) != 1 || len(history(t, store, id)) != 2 {
		t.Errorf("answer %q after %d requests, %d messages stored; want Hello. after 1, 2", turn.Answer, len(srv.Requests()), len(history(t, store, id)))
	}

	for _, c := range []struct {
		name  string
		model llm.Model
		store session.Store
		want  string
	}{
		{"no model", nil, store, "agent: New: nil llm.Model"},
		{"no store", model, nil, "agent: New: nil session.Store"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if got := fmt.Sprint(recover()); got != c.want {
					t.Errorf("New panicked with %q, want %q", got, c.want)
				}
			}()
			agent.New(c.model, c.store, nil)
		})
	}
}
