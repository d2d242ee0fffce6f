// Package sessiontest is the contract every session.Store passes: run [Run] from a
// store's tests with a function that opens a new, empty store (and registers its
// Close with t.Cleanup; closing twice must be harmless). Stores shared by several
// processes or hosts also run [RunShared], which shows that two Store values over
// the same data exclude each other's turns.
//
// Times are compared to the microsecond (PostgreSQL's timestamptz keeps no more).
package sessiontest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
)

// Run runs the contract's cases, each on a store of its own from open, in parallel
// with each other (t.Parallel): open is called from several tests at once.
func Run(t *testing.T, open func(t *testing.T) session.Store) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, st session.Store)
	}{
		{"Create", testCreate},
		{"CreateExists", testCreateExists},
		{"Owner", testOwner},
		{"GetRoundTrip", testGetRoundTrip},
		{"List", testList},
		{"Title", testTitle},
		{"Append", testAppend},
		{"ConcurrentAppends", testConcurrentAppends},
		{"SetLoaded", testSetLoaded},
		{"Delete", testDelete},
		{"Acquire", testAcquire},
		{"AcquireRace", testAcquireRace},
		{"Stale", testStale},
		{"NotFound", testNotFound},
		{"Ping", testPing},
		{"Closed", testClosed},
		{"Keys", testKeys},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

// RunShared runs the cases that need two Store values over the same data (two opens
// of one SQLite file, two pools on one PostgreSQL database): what one writes the
// other reads, and a turn one holds the other cannot take or delete. Its cases run in
// parallel, as Run's do.
func RunShared(t *testing.T, open func(t *testing.T) (a, b session.Store)) {
	t.Run("SharedData", func(t *testing.T) {
		t.Parallel()
		a, b := open(t)
		ctx := t.Context()
		s := &session.Session{System: "shared"}
		mustCreate(t, a, s)
		if err := a.Append(ctx, s.ID, llm.Usage{InputTokens: 3}, text(llm.RoleUser, "hi")); err != nil {
			t.Fatal(err)
		}
		got, err := b.Get(ctx, s.ID)
		if err != nil {
			t.Fatalf("the other store's Get: %v", err)
		}
		if len(got.Messages) != 1 || got.Messages[0].Text != "hi" || got.Usage.InputTokens != 3 {
			t.Errorf("the other store reads %+v, want the appended message and usage", got)
		}
	})
	t.Run("SharedTurns", func(t *testing.T) {
		t.Parallel()
		a, b := open(t)
		ctx := t.Context()
		s := &session.Session{}
		mustCreate(t, a, s)
		release, err := a.Acquire(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Acquire(ctx, s.ID); !errors.Is(err, session.ErrBusy) {
			t.Fatalf("the other store's Acquire during a's turn: %v, want ErrBusy", err)
		}
		if err := b.Delete(ctx, s.ID); !errors.Is(err, session.ErrBusy) {
			t.Fatalf("the other store's Delete during a's turn: %v, want ErrBusy", err)
		}
		release()
		releaseB, err := b.Acquire(ctx, s.ID)
		if err != nil {
			t.Fatalf("the other store's Acquire after a's release: %v", err)
		}
		if _, err := a.Acquire(ctx, s.ID); !errors.Is(err, session.ErrBusy) {
			t.Fatalf("a's Acquire during b's turn: %v, want ErrBusy", err)
		}
		release() // a's stale release must not free b's turn
		if _, err := a.Acquire(ctx, s.ID); !errors.Is(err, session.ErrBusy) {
			t.Fatalf("a's Acquire after a second release of its old turn: %v, want ErrBusy", err)
		}
		releaseB()
		if err := a.Delete(ctx, s.ID); err != nil {
			t.Fatalf("Delete after both turns ended: %v", err)
		}
	})
	t.Run("SharedClose", func(t *testing.T) {
		t.Parallel()
		// A store that closes gives up its turns.
		a, b := open(t)
		ctx := t.Context()
		s := &session.Session{}
		mustCreate(t, a, s)
		if _, err := a.Acquire(ctx, s.ID); err != nil {
			t.Fatal(err)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		release, err := b.Acquire(ctx, s.ID)
		if err != nil {
			t.Fatalf("Acquire after the holder's store closed: %v", err)
		}
		release()
	})
	t.Run("SharedKeys", func(t *testing.T) { t.Parallel(); testSharedKeys(t, open) })
}

// History is a conversation with every kind of content a store must keep exactly:
// text (not ASCII), parallel calls (one with malformed argument text), tool results
// with text, image, embedded text and blob resources and a resource link, an error
// result, and structured content.
func History() []llm.Message {
	return []llm.Message{
		text(llm.RoleUser, "Wetter in Zürich? 🌧 \"quoted\" <tag> \\ \u2028"),
		{Role: llm.RoleAssistant, Text: "Let me check.", Calls: []llm.Call{
			{ID: "call_1", Name: "weather__get", Arguments: `{"city": "Zürich",  "units":"metric"}`},
			{ID: "call_2", Name: "notes__add", Arguments: `{"text": "unterminated`},
			{ID: "call_3", Name: "clock__now", Arguments: ""},
		}},
		{Role: llm.RoleTool, CallID: "call_1", Name: "weather__get", Result: &mcp.CallToolResult{
			Content: []mcp.Content{
				&mcp.TextContent{Text: "12 °C, rain"},
				&mcp.ImageContent{Data: []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 255}, MIMEType: "image/png"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///w.json", MIMEType: "application/json", Text: `{"t":12}`}},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///w.bin", MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2}}},
				&mcp.ResourceLink{URI: "https://example.com/radar", Name: "radar", MIMEType: "text/html"},
			},
			StructuredContent: map[string]any{"celsius": 12.5, "sky": "rain", "hours": []any{1.0, 2.0}},
		}},
		{Role: llm.RoleTool, CallID: "call_2", Name: "notes__add", Result: &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: "malformed arguments: unexpected end of JSON input"}},
			IsError: true,
		}},
		{Role: llm.RoleTool, CallID: "call_3", Name: "clock__now", Result: &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: ""}},
		}},
		text(llm.RoleAssistant, "12 °C and rain.\x00 (a NUL a model once sent)"),
	}
}

func text(role llm.Role, s string) llm.Message { return llm.Message{Role: role, Text: s} }

func mustCreate(t *testing.T, st session.Store, s *session.Session) {
	t.Helper()
	if err := st.Create(t.Context(), s); err != nil {
		t.Fatalf("Create(%q): %v", s.ID, err)
	}
}

func mustGet(t *testing.T, st session.Store, id string) *session.Session {
	t.Helper()
	s, err := st.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("Get(%q): %v", id, err)
	}
	return s
}

// wantErr checks that err wraps target and names id.
func wantErr(t *testing.T, what string, err, target error, id string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: %v, want %v", what, err, target)
		return
	}
	if id != "" && !strings.Contains(err.Error(), id) {
		t.Errorf("%s: %q does not name the session %q", what, err, id)
	}
}

func equalMessages(t *testing.T, what string, got, want []llm.Message) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	g, _ := json.MarshalIndent(got, "", " ")
	w, _ := json.MarshalIndent(want, "", " ")
	t.Errorf("%s: history differs\ngot  %s\nwant %s", what, g, w)
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16,}$`)

func testCreate(t *testing.T, st session.Store) {
	before := time.Now()
	a, b := &session.Session{System: "be brief"}, &session.Session{}
	mustCreate(t, st, a)
	mustCreate(t, st, b)
	after := time.Now()
	for _, s := range []*session.Session{a, b} {
		if !idPattern.MatchString(s.ID) {
			t.Errorf("filled-in id %q is not random and URL-safe", s.ID)
		}
		if !within(s.Created, before, after) || !within(s.LastActive, before, after) {
			t.Errorf("times %v, %v: want now, in [%v, %v]", s.Created, s.LastActive, before, after)
		}
		got := mustGet(t, st, s.ID)
		if !sameTime(got.Created, s.Created) || !sameTime(got.LastActive, s.LastActive) {
			t.Errorf("stored times %v, %v; Create set %v, %v", got.Created, got.LastActive, s.Created, s.LastActive)
		}
	}
	if a.ID == b.ID {
		t.Errorf("two sessions got the same id %q", a.ID)
	}
	// Given times are kept.
	created, active := time.Date(2024, 2, 29, 12, 0, 0, 123456000, time.UTC), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &session.Session{ID: "given", Created: created, LastActive: active}
	mustCreate(t, st, c)
	got := mustGet(t, st, "given")
	if !sameTime(got.Created, created) || !sameTime(got.LastActive, active) {
		t.Errorf("given times came back as %v, %v; want %v, %v", got.Created, got.LastActive, created, active)
	}
}

func testCreateExists(t *testing.T, st session.Store) {
	mustCreate(t, st, &session.Session{ID: "dup", System: "first"})
	err := st.Create(t.Context(), &session.Session{ID: "dup", System: "second"})
	wantErr(t, "Create of a taken id", err, session.ErrExists, "dup")
	if got := mustGet(t, st, "dup"); got.System != "first" {
		t.Errorf("the second Create changed the session: System = %q", got.System)
	}
}

func testGetRoundTrip(t *testing.T, st session.Store) {
	h := History()
	in := &session.Session{
		ID:       "round-trip",
		System:   "You are terse.\nLine two.",
		Metadata: map[string]string{"user": "ana", "channel": "#ops", "empty": ""},
		Messages: h[:2],
		Loaded:   []string{"weather__get", "notes__add"},
		Usage:    llm.Usage{InputTokens: 100, OutputTokens: 7},
	}
	mustCreate(t, st, in)
	ctx := t.Context()
	if err := st.Append(ctx, in.ID, llm.Usage{InputTokens: 50, OutputTokens: 5}, h[2:5]...); err != nil {
		t.Fatal(err)
	}
	if err := st.Append(ctx, in.ID, llm.Usage{InputTokens: 1, OutputTokens: 2}, h[5]); err != nil {
		t.Fatal(err)
	}
	if err := st.Append(ctx, in.ID, llm.Usage{}); err != nil { // nothing to add
		t.Fatal(err)
	}
	got := mustGet(t, st, in.ID)
	equalMessages(t, "Get", got.Messages, History())
	if got.ID != in.ID || got.System != in.System {
		t.Errorf("id, system = %q, %q; want %q, %q", got.ID, got.System, in.ID, in.System)
	}
	if !reflect.DeepEqual(got.Metadata, in.Metadata) {
		t.Errorf("metadata = %v, want %v", got.Metadata, in.Metadata)
	}
	if !slices.Equal(got.Loaded, in.Loaded) {
		t.Errorf("loaded = %q, want %q", got.Loaded, in.Loaded)
	}
	if want := (llm.Usage{InputTokens: 151, OutputTokens: 14}); got.Usage != want {
		t.Errorf("usage = %+v, want the sum %+v", got.Usage, want)
	}
	// What Get returns is the caller's: changing it changes nothing stored.
	got.Messages[0].Text = "changed"
	got.Metadata["user"] = "changed"
	got.Loaded[0] = "changed"
	again := mustGet(t, st, in.ID)
	equalMessages(t, "Get after changing an earlier Get's result", again.Messages, History())
	if again.Metadata["user"] != "ana" || again.Loaded[0] != "weather__get" {
		t.Errorf("changing Get's result changed the store: %v, %q", again.Metadata, again.Loaded)
	}
	// An empty session comes back empty.
	mustCreate(t, st, &session.Session{ID: "empty"})
	e := mustGet(t, st, "empty")
	if len(e.Messages) != 0 || len(e.Metadata) != 0 || len(e.Loaded) != 0 || e.Usage != (llm.Usage{}) || e.System != "" {
		t.Errorf("empty session came back as %+v", e)
	}
}

func testList(t *testing.T, st session.Store) {
	ctx := t.Context()
	if l, err := st.List(ctx); err != nil || len(l) != 0 {
		t.Fatalf("List of an empty store = %v, %v", l, err)
	}
	now := time.Now()
	for _, s := range []*session.Session{
		{ID: "old", LastActive: now.Add(-3 * time.Hour), Messages: History()[:1]},
		{ID: "new", LastActive: now.Add(-1 * time.Hour), Metadata: map[string]string{"k": "v"}},
		{ID: "mid", LastActive: now.Add(-2 * time.Hour), Messages: History()},
	} {
		mustCreate(t, st, s)
	}
	if err := st.Append(ctx, "old", llm.Usage{}, History()[1:3]...); err != nil {
		t.Fatal(err)
	}
	// "old" is now the most recent.
	l, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range l {
		ids = append(ids, s.ID)
	}
	if want := []string{"old", "new", "mid"}; !slices.Equal(ids, want) {
		t.Fatalf("List order %q, want %q (most recently active first)", ids, want)
	}
	for _, s := range l {
		want := map[string]int{"old": 3, "new": 0, "mid": len(History())}[s.ID]
		if s.Messages != want {
			t.Errorf("%s: %d messages, want %d", s.ID, s.Messages, want)
		}
	}
	if l[1].Metadata["k"] != "v" || !sameTime(l[1].LastActive, now.Add(-time.Hour)) {
		t.Errorf("summary of new = %+v", l[1])
	}
}

func testAppend(t *testing.T, st session.Store) {
	ctx := t.Context()
	past := time.Now().Add(-time.Hour)
	s := &session.Session{LastActive: past, Created: past}
	mustCreate(t, st, s)
	before := time.Now()
	if err := st.Append(ctx, s.ID, llm.Usage{OutputTokens: 1}, text(llm.RoleUser, "one")); err != nil {
		t.Fatal(err)
	}
	got := mustGet(t, st, s.ID)
	if !within(got.LastActive, before, time.Now()) {
		t.Errorf("LastActive after Append = %v, want now (after %v)", got.LastActive, before)
	}
	if !sameTime(got.Created, past) {
		t.Errorf("Append changed Created to %v", got.Created)
	}
	if err := st.Append(ctx, s.ID, llm.Usage{OutputTokens: 1}, text(llm.RoleAssistant, "two"), text(llm.RoleUser, "three")); err != nil {
		t.Fatal(err)
	}
	got = mustGet(t, st, s.ID)
	equalMessages(t, "after two Appends", got.Messages, []llm.Message{text(llm.RoleUser, "one"), text(llm.RoleAssistant, "two"), text(llm.RoleUser, "three")})
	if got.Usage.OutputTokens != 2 {
		t.Errorf("usage %+v, want 2 output tokens", got.Usage)
	}
}

func testConcurrentAppends(t *testing.T, st session.Store) {
	const sessions, appends = 6, 15
	ctx := t.Context()
	for i := range sessions {
		mustCreate(t, st, &session.Session{ID: fmt.Sprintf("c%d", i)})
	}
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for i := range sessions {
		wg.Go(func() {
			id := fmt.Sprintf("c%d", i)
			for j := range appends {
				err := st.Append(ctx, id, llm.Usage{InputTokens: 1, OutputTokens: int64(j)},
					text(llm.RoleUser, fmt.Sprintf("%s q%d", id, j)), text(llm.RoleAssistant, fmt.Sprintf("%s a%d", id, j)))
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i := range sessions {
		id := fmt.Sprintf("c%d", i)
		var want []llm.Message
		for j := range appends {
			want = append(want, text(llm.RoleUser, fmt.Sprintf("%s q%d", id, j)), text(llm.RoleAssistant, fmt.Sprintf("%s a%d", id, j)))
		}
		got := mustGet(t, st, id)
		equalMessages(t, id, got.Messages, want)
		if u := (llm.Usage{InputTokens: appends, OutputTokens: appends * (appends - 1) / 2}); got.Usage != u {
			t.Errorf("%s: usage %+v, want %+v", id, got.Usage, u)
		}
	}
}

func testSetLoaded(t *testing.T, st session.Store) {
	ctx := t.Context()
	s := &session.Session{Loaded: []string{"a"}}
	mustCreate(t, st, s)
	for _, names := range [][]string{{"b", "a", "c"}, {"z"}, nil} {
		if err := st.SetLoaded(ctx, s.ID, names); err != nil {
			t.Fatal(err)
		}
		if got := mustGet(t, st, s.ID).Loaded; !slices.Equal(got, names) && !(len(got) == 0 && len(names) == 0) {
			t.Errorf("Loaded = %q after SetLoaded(%q)", got, names)
		}
	}
}

func testDelete(t *testing.T, st session.Store) {
	ctx := t.Context()
	s := &session.Session{Messages: History()}
	mustCreate(t, st, s)
	keep := &session.Session{Messages: History()[:1]}
	mustCreate(t, st, keep)
	release, err := st.Acquire(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Delete during a turn", st.Delete(ctx, s.ID), session.ErrBusy, s.ID)
	mustGet(t, st, s.ID)
	release()
	if err := st.Delete(ctx, s.ID); err != nil {
		t.Fatalf("Delete after the turn: %v", err)
	}
	_, err = st.Get(ctx, s.ID)
	wantErr(t, "Get after Delete", err, session.ErrNotFound, s.ID)
	wantErr(t, "Delete twice", st.Delete(ctx, s.ID), session.ErrNotFound, s.ID)
	_, err = st.Acquire(ctx, s.ID)
	wantErr(t, "Acquire after Delete", err, session.ErrNotFound, s.ID)
	// The id can be used again, with nothing of the old session.
	mustCreate(t, st, &session.Session{ID: s.ID})
	if got := mustGet(t, st, s.ID); len(got.Messages) != 0 {
		t.Errorf("a new session under a deleted id has %d messages", len(got.Messages))
	}
	if got := mustGet(t, st, keep.ID); len(got.Messages) != 1 {
		t.Errorf("Delete of another session left %d messages here, want 1", len(got.Messages))
	}
	l, err := st.List(ctx)
	if err != nil || len(l) != 2 {
		t.Errorf("List after Delete = %v, %v; want 2 sessions", l, err)
	}
}

func testAcquire(t *testing.T, st session.Store) {
	ctx := t.Context()
	s := &session.Session{}
	mustCreate(t, st, s)
	release, err := st.Acquire(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The second taker is refused at once, even with no deadline.
	_, err = st.Acquire(context.Background(), s.ID)
	wantErr(t, "second Acquire", err, session.ErrBusy, s.ID)
	// The holder may still write.
	if err := st.Append(ctx, s.ID, llm.Usage{}, text(llm.RoleUser, "x")); err != nil {
		t.Errorf("Append during the turn: %v", err)
	}
	release()
	release() // harmless
	release2, err := st.Acquire(ctx, s.ID)
	if err != nil {
		t.Fatalf("Acquire after release: %v", err)
	}
	release() // the first turn's release must not end the second turn
	_, err = st.Acquire(ctx, s.ID)
	wantErr(t, "Acquire after a stale release", err, session.ErrBusy, s.ID)
	release2()
	// Turns of different sessions are independent.
	other := &session.Session{}
	mustCreate(t, st, other)
	r1, err := st.Acquire(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := st.Acquire(ctx, other.ID)
	if err != nil {
		t.Fatalf("Acquire of another session during a turn: %v", err)
	}
	r1()
	r2()
}

func testAcquireRace(t *testing.T, st session.Store) {
	ctx := t.Context()
	s := &session.Session{}
	mustCreate(t, st, s)
	const takers = 8
	var (
		won, busy atomic.Int32
		wg        sync.WaitGroup
		mu        sync.Mutex
		releases  []func()
		start     = make(chan struct{})
	)
	for range takers {
		wg.Go(func() {
			<-start
			release, err := st.Acquire(ctx, s.ID)
			switch {
			case err == nil:
				won.Add(1)
				mu.Lock()
				releases = append(releases, release)
				mu.Unlock()
			case errors.Is(err, session.ErrBusy):
				busy.Add(1)
			default:
				t.Errorf("Acquire: %v", err)
			}
		})
	}
	close(start)
	wg.Wait()
	if won.Load() != 1 || busy.Load() != takers-1 {
		t.Errorf("%d concurrent takers: %d won, %d busy; want 1 and %d", takers, won.Load(), busy.Load(), takers-1)
	}
	for _, r := range releases {
		r()
	}
}

func testStale(t *testing.T, st session.Store) {
	ctx := t.Context()
	now := time.Now()
	for id, ago := range map[string]time.Duration{"a": 3 * time.Hour, "b": 2 * time.Hour, "c": 10 * time.Minute} {
		mustCreate(t, st, &session.Session{ID: id, LastActive: now.Add(-ago)})
	}
	mustCreate(t, st, &session.Session{ID: "d"})
	for _, tc := range []struct {
		before time.Time
		want   []string
	}{
		{now.Add(-4 * time.Hour), nil},
		{now.Add(-time.Hour), []string{"a", "b"}},
		{now.Add(-time.Minute), []string{"a", "b", "c"}},
	} {
		got, err := st.Stale(ctx, tc.before)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Stale(now-%v) = %q, want %q", now.Sub(tc.before), got, tc.want)
		}
	}
	// Append makes a stale session fresh.
	if err := st.Append(ctx, "a", llm.Usage{}, text(llm.RoleUser, "back")); err != nil {
		t.Fatal(err)
	}
	got, err := st.Stale(ctx, now.Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("Stale after Append to a = %q, want [b c]", got)
	}
}

func testNotFound(t *testing.T, st session.Store) {
	ctx := t.Context()
	const id = "no-such-session"
	_, err := st.Get(ctx, id)
	wantErr(t, "Get", err, session.ErrNotFound, id)
	wantErr(t, "Append", st.Append(ctx, id, llm.Usage{InputTokens: 1}, text(llm.RoleUser, "x")), session.ErrNotFound, id)
	wantErr(t, "SetLoaded", st.SetLoaded(ctx, id, []string{"a"}), session.ErrNotFound, id)
	wantErr(t, "Delete", st.Delete(ctx, id), session.ErrNotFound, id)
	_, err = st.Acquire(ctx, id)
	wantErr(t, "Acquire", err, session.ErrNotFound, id)
	// Nothing was created on the way.
	if l, err := st.List(ctx); err != nil || len(l) != 0 {
		t.Errorf("List after failed calls = %v, %v; want none", l, err)
	}
}

func testClosed(t *testing.T, st session.Store) {
	ctx := t.Context()
	s := &session.Session{}
	mustCreate(t, st, s)
	release, err := st.Acquire(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	release() // harmless after Close
	wantErr(t, "Create", st.Create(ctx, &session.Session{ID: "new"}), session.ErrClosed, "new")
	_, err = st.Get(ctx, s.ID)
	wantErr(t, "Get", err, session.ErrClosed, s.ID)
	_, err = st.List(ctx)
	wantErr(t, "List", err, session.ErrClosed, "")
	wantErr(t, "Append", st.Append(ctx, s.ID, llm.Usage{}, text(llm.RoleUser, "x")), session.ErrClosed, s.ID)
	wantErr(t, "SetLoaded", st.SetLoaded(ctx, s.ID, nil), session.ErrClosed, s.ID)
	wantErr(t, "Delete", st.Delete(ctx, s.ID), session.ErrClosed, s.ID)
	_, err = st.Acquire(ctx, s.ID)
	wantErr(t, "Acquire", err, session.ErrClosed, s.ID)
	_, err = st.Stale(ctx, time.Now())
	wantErr(t, "Stale", err, session.ErrClosed, "")
	_, err = session.OwnerOf(ctx, st, s.ID)
	wantErr(t, "OwnerOf", err, session.ErrClosed, s.ID)
	if p, ok := st.(session.Pinger); ok {
		wantErr(t, "Ping", p.Ping(ctx), session.ErrClosed, "")
	}
	keysClosed(t, st)
}

// testPing: a store that can be pinged answers while it is open, empty or not.
func testPing(t *testing.T, st session.Store) {
	p, ok := st.(session.Pinger)
	if !ok {
		t.Skip("the store has no Ping")
	}
	if err := p.Ping(t.Context()); err != nil {
		t.Fatalf("Ping on an empty store: %v", err)
	}
	mustCreate(t, st, &session.Session{})
	if err := p.Ping(t.Context()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}
