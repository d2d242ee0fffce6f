package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/conversation"
)

// as is the header that makes a request tok's (testPeople).
func as(tok string) string { return "Authorization: Bearer " + tok }

// openStreamAs is openStream with tok as the bearer token.
func (e *env) openStreamAs(tok, path string, body any) (*stream, response) {
	e.t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, e.url+path, bytes.NewReader(data))
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := client.Do(req)
	if err != nil {
		e.t.Fatalf("POST %s: %v", path, err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return nil, response{status: res.StatusCode, header: res.Header, body: string(b)}
	}
	e.t.Cleanup(func() { res.Body.Close() })
	return &stream{res: res, rd: bufio.NewReader(res.Body)}, response{status: res.StatusCode, header: res.Header}
}

// newSessionAs creates a session as tok and returns its id and owner.
func newSessionAs(t *testing.T, e *env, tok string, body any) (id, owner string) {
	t.Helper()
	var s struct {
		ID    string `json:"id"`
		Owner string `json:"owner"`
	}
	r := e.do("POST", "/v1/sessions", body, as(tok))
	r.want(t, 201)
	r.decode(t, &s)
	return s.ID, s.Owner
}

// listedAs is what GET /v1/sessions lists to tok: owner by session id.
func listedAs(t *testing.T, e *env, tok string) map[string]string {
	t.Helper()
	var l struct {
		Sessions []struct {
			ID    string `json:"id"`
			Owner string `json:"owner"`
		} `json:"sessions"`
	}
	r := e.do("GET", "/v1/sessions", nil, as(tok))
	r.want(t, 200)
	r.decode(t, &l)
	out := map[string]string{}
	for _, s := range l.Sessions {
		out[s.ID] = s.Owner
	}
	return out
}

// stranger is one request that alice makes on a session that is not hers.
type stranger struct {
	method, path string
	body         any
}

// sameAnswer fails unless a and b are the same answer: status, body and headers (the
// date aside; the requests sent the same request id).
func sameAnswer(t *testing.T, what string, a, b response) {
	t.Helper()
	ha, hb := a.header.Clone(), b.header.Clone()
	ha.Del("Date")
	hb.Del("Date")
	if a.status != b.status || a.body != b.body || !equalHeaders(ha, hb) {
		t.Errorf("%s: another's session answers\n%d %v %s\na missing one\n%d %v %s", what, a.status, ha, a.body, b.status, hb, b.body)
	}
}

func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestOwners: with identities, a session is its creator's. Alice cannot get, list,
// delete, continue, approve or answer the questions of bob's session, nor of a
// session without an owner: every route under /v1/sessions/{id} answers her exactly
// (status, headers, body) as it answers once the session is gone. She may not choose
// a session's id; the static token's admin may. Carol, an admin, lists every session
// with its owner and gets, approves, answers and deletes bob's.
func TestOwners(t *testing.T) {
	t.Parallel()
	clock := clockServer(t)
	clock.Approve = []string{"convert_*"}
	e := start(t, setup{servers: []config.Server{clock, askServer(t)}, model: true, ask: true,
		opts: api.Options{Identify: testPeople, Token: "static-secret"}, conv: conversation.Options{ApprovalTimeout: time.Minute}})

	alices, owner := newSessionAs(t, e, "alice-token", nil)
	if owner != "alice" {
		t.Errorf("alice's new session has owner %q", owner)
	}
	bobs, _ := newSessionAs(t, e, "bob-token", map[string]any{"system": "bob's"})
	legacy, owner := newSessionAs(t, e, "static-secret", map[string]any{"id": "legacy"})
	if legacy != "legacy" || owner != "" {
		t.Errorf("the static token's session: %q owned by %q, want legacy owned by nobody", legacy, owner)
	}
	e.do("POST", "/v1/sessions", map[string]any{"id": "mine"}, as("alice-token")).want(t, 400, "the service picks a session's id")
	e.do("POST", "/v1/sessions", map[string]any{"id": "carols"}, as("carol-token")).want(t, 201)

	if got := listedAs(t, e, "alice-token"); len(got) != 1 || got[alices] != "alice" {
		t.Errorf("alice lists %v, want only hers", got)
	}
	if got := listedAs(t, e, "bob-token"); len(got) != 1 || got[bobs] != "bob" {
		t.Errorf("bob lists %v, want only his", got)
	}
	if got := listedAs(t, e, "carol-token"); len(got) != 4 || got[alices] != "alice" || got[bobs] != "bob" || got["legacy"] != "" || got["carols"] != "carol" {
		t.Errorf("carol lists %v, want all four with their owners", got)
	}
	e.do("GET", "/v1/sessions/"+alices, nil, as("alice-token")).want(t, 200, `"owner": "alice"`)
	e.do("GET", "/v1/sessions/"+bobs, nil, as("carol-token")).want(t, 200, `"owner": "bob"`, `"system": "bob's"`)
	e.do("GET", "/v1/sessions/legacy", nil, as("carol-token")).want(t, 200)

	// What alice sends to sessions not hers, and what she got; asked again once they
	// are gone.
	var tries []stranger
	var got []response
	try := func(s stranger) response {
		t.Helper()
		r := e.do(s.method, s.path, s.body, as("alice-token"), "X-Request-Id: same-id")
		tries, got = append(tries, s), append(got, r)
		return r
	}
	for _, id := range []string{bobs, legacy} {
		try(stranger{"GET", "/v1/sessions/" + id, nil}).want(t, 404)
		try(stranger{"POST", "/v1/sessions/" + id + "/messages", map[string]string{"content": "hi"}}).want(t, 404)
		try(stranger{"DELETE", "/v1/sessions/" + id, nil}).want(t, 404)
	}

	// A call of bob's waits for approval: alice can neither see it, decide it, nor
	// take or delete the busy session (a 404, not the 409 that would say it is busy).
	s, r := e.openStreamAs("bob-token", "/v1/sessions/"+bobs+"/messages", map[string]string{"content": convertCall})
	if s == nil {
		t.Fatalf("bob's turn: %d %s", r.status, r)
	}
	var ask struct {
		CallID string `json:"callId"`
	}
	json.Unmarshal([]byte(last(s.until(t, "approval_required")).data), &ask)
	e.do("GET", "/v1/sessions/"+bobs, nil, as("bob-token")).want(t, 200, `"callId": "`+ask.CallID+`"`)
	try(stranger{"GET", "/v1/sessions/" + bobs, nil}).want(t, 404)
	try(stranger{"POST", "/v1/sessions/" + bobs + "/messages", map[string]string{"content": "hi"}}).want(t, 404)
	try(stranger{"DELETE", "/v1/sessions/" + bobs, nil}).want(t, 404)
	try(stranger{"POST", "/v1/sessions/" + bobs + "/approvals/" + ask.CallID, map[string]any{"allow": true}}).want(t, 404)
	e.do("POST", "/v1/sessions/"+bobs+"/approvals/"+ask.CallID, map[string]any{"allow": true}, as("carol-token")).want(t, 200)
	if done := last(s.until(t, "done")).data; !strings.Contains(done, "convert_time: 2026-01-02T12:04:05+09:00") {
		t.Errorf("bob's turn, approved by carol: %s", done)
	}

	// A server's question in bob's turn: alice cannot answer it; carol can.
	s, r = e.openStreamAs("bob-token", "/v1/sessions/"+bobs+"/messages", map[string]string{"content": `call ask {"message": "Who?"}`})
	if s == nil {
		t.Fatalf("bob's turn: %d %s", r.status, r)
	}
	in := asked(t, s)
	try(stranger{"POST", "/v1/sessions/" + bobs + "/inputs/" + in.RequestID, map[string]any{"action": "decline"}}).want(t, 404)
	e.do("POST", "/v1/sessions/"+bobs+"/inputs/"+in.RequestID, map[string]any{"action": "decline"}, as("carol-token")).want(t, 200)
	toolResult(t, s, in.RequestID, "decline")

	// The model heard bob's and carol's turns only: alice's messages never reached it.
	for _, req := range e.fake.Requests() {
		for _, m := range req.Messages {
			if m.Text == "hi" {
				t.Errorf("alice's message reached the model: %+v", req.Messages)
			}
		}
	}
	e.do("GET", "/v1/sessions/"+bobs, nil, as("bob-token")).want(t, 200, `"messages": [`, `"busy": false`)

	// Once the sessions are gone, alice's requests get the very same answers.
	e.do("DELETE", "/v1/sessions/"+bobs, nil, as("carol-token")).want(t, 204)
	e.do("DELETE", "/v1/sessions/legacy", nil, as("carol-token")).want(t, 204)
	for i, s := range tries {
		sameAnswer(t, s.method+" "+s.path, got[i], e.do(s.method, s.path, s.body, as("alice-token"), "X-Request-Id: same-id"))
	}
	e.do("DELETE", "/v1/sessions/"+alices, nil, as("alice-token")).want(t, 204)
}

// TestOwnersWithoutIdentities: a service without Identify is as before: every
// session is everyone's, with no owner, and a client may choose the id.
func TestOwnersWithoutIdentities(t *testing.T) {
	t.Parallel()
	e := start(t, setup{opts: api.Options{Token: "static-secret"}})
	e.do("POST", "/v1/sessions", map[string]any{"id": "chosen"}).want(t, 201)
	r := e.do("GET", "/v1/sessions", nil)
	r.want(t, 200, `"id": "chosen"`)
	if strings.Contains(r.body, `"owner"`) {
		t.Errorf("a session without identities shows an owner: %s", r.body)
	}
	e.do("POST", "/v1/sessions", map[string]any{"id": "chosen"}).want(t, 409, "exists")
}

// TestOwnersCalls: the recent calls are their owner's. A direct tool call is its
// caller's, a session's turn's call the session's owner's (whoever ran the turn), a
// chat completion's its caller's: alice's events, snapshot and GET /v1/calls show
// hers only, bob's his; carol, an admin, sees all with their owners; the servers'
// events reach everyone.
func TestOwnersCalls(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, opts: api.Options{Identify: testPeople}})
	alice, bob, carol := e.watchAs("alice-token"), e.watchAs("bob-token"), e.watchAs("carol-token")
	for _, s := range []*stream{alice, bob, carol} {
		if snap := decodeEvent[eventSnapshot](t, last(s.until(t, "snapshot"))); len(snap.Calls) != 0 || len(snap.Servers) != 1 {
			t.Fatalf("first snapshot %+v", snap)
		}
	}
	call := func(tok, zone string) {
		t.Helper()
		e.do("POST", "/v1/tools/current_time/call", map[string]any{"arguments": map[string]string{"zone": zone}}, as(tok)).want(t, 200)
	}

	// bob's: a direct call, a turn in his session run by carol, a chat completion.
	call("bob-token", "Bob/Direct")
	bobs, _ := newSessionAs(t, e, "bob-token", nil)
	e.do("POST", "/v1/sessions/"+bobs+"/messages", map[string]string{"content": `call current_time {"zone": "Bob/Turn"}`}, as("carol-token")).want(t, 200)
	e.do("POST", "/v1/chat/completions", map[string]any{"messages": []any{map[string]any{"role": "user", "content": `call current_time {"zone": "Bob/Chat"}`}}},
		as("bob-token")).want(t, 200)
	// then alice's.
	call("alice-token", "Alice/Direct")

	// alice's first call event is hers: bob's, sent before, never reached her.
	if c := decodeEvent[eventCallOwned](t, last(alice.until(t, "call"))); c.Owner != "alice" || !strings.Contains(c.Error, "Alice/Direct") {
		t.Errorf("alice's first call event %+v, want her own", c)
	}
	for _, want := range []string{"Bob/Direct", "Bob/Turn", "Bob/Chat"} {
		c := decodeEvent[eventCallOwned](t, last(bob.until(t, "call")))
		if c.Owner != "bob" || !strings.Contains(c.Error, want) {
			t.Errorf("bob's call event %+v, want his %s", c, want)
		}
	}
	for _, want := range []string{"Bob/Direct", "Bob/Turn", "Bob/Chat", "Alice/Direct"} {
		if c := decodeEvent[eventCallOwned](t, last(carol.until(t, "call"))); !strings.Contains(c.Error, want) {
			t.Errorf("carol's call event %+v, want %s", c, want)
		}
	}

	owners := func(tok string) []string {
		t.Helper()
		var calls struct {
			Calls []eventCallOwned `json:"calls"`
		}
		e.do("GET", "/v1/calls", nil, as(tok)).decode(t, &calls)
		var out []string
		for _, c := range calls.Calls {
			out = append(out, c.Owner+" "+c.Source)
		}
		return out
	}
	if got, want := owners("alice-token"), []string{"alice api"}; !slices.Equal(got, want) {
		t.Errorf("alice's GET /v1/calls: %q, want %q", got, want)
	}
	if got, want := owners("bob-token"), []string{"bob api", "bob session", "bob chat"}; !slices.Equal(got, want) {
		t.Errorf("bob's GET /v1/calls: %q, want %q", got, want)
	}
	if got, want := owners("carol-token"), []string{"bob api", "bob session", "bob chat", "alice api"}; !slices.Equal(got, want) {
		t.Errorf("carol's GET /v1/calls: %q, want %q", got, want)
	}

	// A fresh stream's snapshot holds one's own calls; the servers are everyone's.
	snap := decodeEvent[eventSnapshot](t, last(e.watchAs("alice-token").until(t, "snapshot")))
	if len(snap.Calls) != 1 || len(snap.Servers) != 1 {
		t.Errorf("alice's snapshot: %d calls, %d servers; want her 1 call and the server", len(snap.Calls), len(snap.Servers))
	}
	e.do("POST", "/v1/servers/clock/restart", nil, as("carol-token")).want(t, http.StatusAccepted)
	for _, s := range []*stream{alice, bob} {
		s.until(t, "server")
	}
}

// eventCallOwned is a call event with its owner.
type eventCallOwned struct {
	eventCall
	Owner string `json:"owner"`
}

// watchAs opens GET /v1/events as tok.
func (e *env) watchAs(tok string) *stream {
	e.t.Helper()
	s, r := e.getStream("/v1/events", tok)
	if s == nil {
		e.t.Fatalf("GET /v1/events: %d %s", r.status, r.body)
	}
	return s
}
