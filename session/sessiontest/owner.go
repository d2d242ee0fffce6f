package sessiontest

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
)

// testOwner: a session's owner is kept as Create was given it, comes back from Get
// and List, and a second Create of the same id (by someone else) changes nothing.
func testOwner(t *testing.T, st session.Store) {
	ctx := t.Context()
	for _, s := range []*session.Session{
		{ID: "alices", Owner: "alice"},
		{ID: "bobs", Owner: "https://idp.example.com|bob@example.com"},
		{ID: "nobodys"},
	} {
		mustCreate(t, st, s)
	}
	err := st.Create(ctx, &session.Session{ID: "alices", Owner: "bob"})
	wantErr(t, "Create of alice's id by bob", err, session.ErrExists, "alices")
	if err := st.Append(ctx, "alices", llm.Usage{}, text(llm.RoleUser, "mine")); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"alices": "alice", "bobs": "https://idp.example.com|bob@example.com", "nobodys": ""}
	for id, owner := range want {
		if got := mustGet(t, st, id).Owner; got != owner {
			t.Errorf("Get(%q).Owner = %q, want %q", id, got, owner)
		}
		if got, err := session.OwnerOf(ctx, st, id); got != owner || err != nil {
			t.Errorf("OwnerOf(%q) = %q, %v; want %q", id, got, err, owner)
		}
	}
	_, err = session.OwnerOf(ctx, st, "no-such-session")
	wantErr(t, "OwnerOf a missing session", err, session.ErrNotFound, "no-such-session")
	l, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != len(want) {
		t.Fatalf("List = %+v, want %d sessions", l, len(want))
	}
	for _, sum := range l {
		if sum.Owner != want[sum.ID] {
			t.Errorf("List: %s's owner = %q, want %q", sum.ID, sum.Owner, want[sum.ID])
		}
	}
}

// CheckUpgraded is the contract for a database store's schema upgrade: st was opened
// over a database that an older Switchboard made, before sessions had owners, and
// that holds the sessions ids, each with one message (from the user, "before
// owners"). They are kept with their history and no owner (""), they go on as
// before, and a new session keeps its owner. Their title (stored by none) is their
// message's text; a new session's is kept.
func CheckUpgraded(t *testing.T, st session.Store, ids ...string) {
	t.Helper()
	ctx := t.Context()
	for _, id := range ids {
		s := mustGet(t, st, id)
		if s.Owner != "" || len(s.Messages) != 1 || s.Messages[0].Text != "before owners" {
			t.Errorf("%s after the upgrade: owner %q, messages %+v; want no owner and the message kept", id, s.Owner, s.Messages)
		}
		if err := st.Append(ctx, id, llm.Usage{}, text(llm.RoleAssistant, "after")); err != nil {
			t.Errorf("Append to %s after the upgrade: %v", id, err)
		}
	}
	mustCreate(t, st, &session.Session{ID: "after-upgrade", Owner: "alice"})
	if err := st.Append(ctx, "after-upgrade", llm.Usage{}, text(llm.RoleUser, "after owners")); err != nil {
		t.Fatal(err)
	}
	l, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != len(ids)+1 {
		t.Fatalf("List after the upgrade = %+v, want %d sessions", l, len(ids)+1)
	}
	for _, sum := range l {
		want := ""
		if sum.ID == "after-upgrade" {
			want = "alice"
		}
		if sum.Owner != want {
			t.Errorf("List after the upgrade: %s's owner = %q, want %q", sum.ID, sum.Owner, want)
		}
		title := "before owners"
		if sum.ID == "after-upgrade" {
			title = "after owners"
		}
		if sum.Title != title {
			t.Errorf("List after the upgrade: %s's title = %q, want %q", sum.ID, sum.Title, title)
		}
	}
}
