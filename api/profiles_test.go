package api_test

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/fakeidp"
	"github.com/switchboard-mcp/switchboard/tool"
)

// The profiles of these tests: timekeepers reach the clock but add_duration, writers
// the notes tools that do not delete.
var testProfiles = []access.Profile{
	{Name: "time", Servers: []string{"clock"}, Tools: tool.ToolFilter{Deny: []string{"add_duration"}}, Groups: []string{"timekeepers"}},
	{Name: "notes", Servers: []string{"notes"}, Tools: tool.ToolFilter{Allow: []string{"*_note", "list_notes"}, Deny: []string{"delete_*"}}, Groups: []string{"writers"}},
}

var (
	timeTools  = []string{"current_time", "convert_time"}
	notesTools = []string{"put_note", "get_note", "list_notes"}
)

// profilesEnv is an API over the demo's clock and notes servers (a notebook of the
// test's own), whose people are the fake provider's tokens, with the gateway at /mcp,
// a fake model and the profiles of pol.
type profilesEnv struct {
	*env
	idp                       *fakeidp.Provider
	alice, bob, root, mallory string // timekeeper, writer, admin, in no profile
	key                       string // an application key of the notes profile (POST /v1/keys)
}

func startProfiles(t *testing.T, pol *access.Policy) *profilesEnv {
	t.Helper()
	return startProfilesAgent(t, pol, nil)
}

// startProfilesAgent is startProfiles whose agent's options agentOpts changes.
func startProfilesAgent(t *testing.T, pol *access.Policy, agentOpts func(*agent.Options)) *profilesEnv {
	t.Helper()
	idp, err := fakeidp.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idp.Close() })
	v, err := identity.NewVerifier(context.Background(), &identity.OIDCOptions{Issuer: idp.Issuer, Audience: idp.Audience(), Admins: []string{"root"}})
	if err != nil {
		t.Fatal(err)
	}
	clock := clockServer(t)
	notes := clock
	notes.Name, notes.Args = "notes", []string{"demo-server", "notes"}
	notes.Env = map[string]string{demo.NotesFileEnv: filepath.Join(t.TempDir(), "notes.json")}
	notes.InheritEnv = true
	e := start(t, setup{servers: []config.Server{clock, notes}, model: true, gateway: true, agent: agentOpts,
		opts: api.Options{Identify: v.Identify, Issuer: idp.Issuer, Access: pol, Profiles: pol.Names}})
	e.token = ""
	mint := func(sub string, groups ...string) string {
		return idp.Mint(map[string]any{"sub": sub, "groups": groups})
	}
	root := mint("root")
	var key apiwire.NewKey
	if slices.Contains(pol.Names(), "notes") {
		// An application key of the notes profile, made as an admin makes one.
		r := e.do("POST", "/v1/keys", `{"name": "ci-bot", "profiles": ["notes"]}`, bearer(root))
		r.want(t, 201)
		r.decode(t, &key)
	}
	return &profilesEnv{env: e, idp: idp, alice: mint("alice", "timekeepers", "staff"), bob: mint("bob", "writers"),
		root: root, mallory: mint("mallory", "staff"), key: key.Secret}
}

func containsAll(s string, subs ...string) bool {
	return !slices.ContainsFunc(subs, func(sub string) bool { return !strings.Contains(s, sub) })
}

func bearer(tok string) string { return "Authorization: Bearer " + tok }

// toolNames is GET /v1/tools (with query) as tok sees it.
func (e *profilesEnv) toolNames(t *testing.T, tok, query string) []string {
	t.Helper()
	r := e.do("GET", "/v1/tools"+query, nil, bearer(tok))
	r.want(t, 200)
	var tools []apiwire.ToolInfo
	r.decode(t, &tools)
	var out []string
	for _, tl := range tools {
		out = append(out, tl.Name)
	}
	return out
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// TestProfilesAPI: two people in different groups see and call exactly their
// profiles' tools, prompts and resources through the API; an admin sees everything
// and a person in no profile nothing; ?profile= narrows to one of the caller's
// (403 for another); a call outside them is a 404 that never reaches the server,
// audited as refused.
func TestProfilesAPI(t *testing.T) {
	t.Parallel()
	e := startProfiles(t, access.NewPolicy(testProfiles))
	audit := auditOf(e.env, false)
	all := append(append([]string{"add_duration", "delete_note", "search_notes"}, timeTools...), notesTools...)
	for _, c := range []struct {
		who, tok, query string
		want            []string
	}{
		{"alice", e.alice, "", timeTools},
		{"bob", e.bob, "", notesTools},
		{"bob narrowed to his own", e.bob, "?profile=notes", notesTools},
		{"root", e.root, "", all},
		{"root narrowed", e.root, "?profile=time", timeTools},
		{"mallory", e.mallory, "", nil},
		{"an application key", e.key, "", notesTools},
	} {
		if got := e.toolNames(t, c.tok, c.query); !sameSet(got, c.want) {
			t.Errorf("%s: GET /v1/tools%s = %v, want %v", c.who, c.query, got, c.want)
		}
	}
	e.do("GET", "/v1/tools?profile=notes", nil, bearer(e.alice)).want(t, 403, `"code": "forbidden"`, `profile \"notes\": not one of your profiles`)
	e.do("GET", "/v1/tools?profile=nope", nil, bearer(e.root)).want(t, 403, "not one of your profiles")
	e.do("GET", "/v1/tools?profile=time", nil, bearer(e.key)).want(t, 403, "not one of your profiles")

	// Alice's call of a notes tool: unknown to her, never run, audited as refused;
	// the closest names she is offered are hers.
	r := e.do("POST", "/v1/tools/put_note/call", `{"arguments": {"title": "alice was here", "text": "x"}}`, bearer(e.alice))
	r.want(t, 404, `"code": "unknown_tool"`)
	if _, _, sugg := r.errorOf(t); slices.ContainsFunc(sugg, func(s string) bool { return slices.Contains(notesTools, s) }) {
		t.Errorf("the 404 suggests a tool alice cannot see: %v", sugg)
	}
	e.do("POST", "/v1/tools/delete_note/call", `{"arguments": {"title": "x"}}`, bearer(e.bob)).want(t, 404, "unknown_tool")
	e.do("POST", "/v1/tools/convert_time/call", `{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}`, bearer(e.alice)).want(t, 200, "+09:00")
	e.do("POST", "/v1/tools/put_note/call", `{"arguments": {"title": "bob's", "text": "hello"}}`, bearer(e.bob)).want(t, 200, `"isError": false`)
	lines := auditLines(t, audit)
	if len(lines) != 4 {
		t.Fatalf("%d audit lines, want 4:\n%s", len(lines), audit)
	}
	wantLine(t, "alice's refused call", lines[0], map[string]any{"subject": "alice", "tool": "put_note", "outcome": "refused"})
	wantLine(t, "bob's refused call", lines[1], map[string]any{"subject": "bob", "tool": "delete_note", "outcome": "refused"})
	wantLine(t, "bob's call", lines[3], map[string]any{"subject": "bob", "server": "notes", "tool": "put_note", "outcome": "ok"})
	r = e.do("POST", "/v1/tools/list_notes/call", `{"arguments": {}}`, bearer(e.root))
	r.want(t, 200, "bob's")
	if strings.Contains(r.body, "alice was here") {
		t.Errorf("alice's refused call reached the notes server: %s", r.body)
	}
	e.do("POST", "/v1/tools/convert_time/call", `{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "UTC"}}`, bearer(e.key)).want(t, 404, "unknown_tool")

	// Search ranks only what the caller reaches.
	r = e.do("GET", "/v1/search?q=note&limit=10", nil, bearer(e.alice))
	r.want(t, 200)
	if strings.Contains(r.body, "_note") {
		t.Errorf("alice's search finds notes tools: %s", r.body)
	}
	e.do("GET", "/v1/search?q=note", nil, bearer(e.bob)).want(t, 200, "put_note")

	// Prompts and resources are those of the servers a profile reaches.
	e.do("GET", "/v1/prompts", nil, bearer(e.bob)).want(t, 200, "review_notes")
	for path, what := range map[string]string{"/v1/prompts": "review_notes", "/v1/resources": "notes://index", "/v1/resources/templates": "notes://note/"} {
		if r := e.do("GET", path, nil, bearer(e.alice)); r.status != 200 || strings.Contains(r.body, what) {
			t.Errorf("alice: GET %s: %d %s", path, r.status, r.body)
		}
	}
	e.do("GET", "/v1/resources/read?uri=notes://index", nil, bearer(e.alice)).want(t, 404)
	e.do("GET", "/v1/resources/read?uri=notes://index", nil, bearer(e.bob)).want(t, 200, "bob's")
	e.do("POST", "/v1/prompts/review_notes/get", `{}`, bearer(e.alice)).want(t, 404)
}

// TestProfilesTurns: a chat turn's tools are its person's, through a session and
// through each compatible API: the model is given no other, and a call of another
// never reaches the server.
func TestProfilesTurns(t *testing.T) {
	t.Parallel()
	e := startProfiles(t, access.NewPolicy(testProfiles))
	audit := auditOf(e.env, false)
	given := func(answer string) []string {
		_, list, _ := strings.Cut(answer, "Tools I can call: ")
		if list == "" {
			return nil
		}
		return strings.Split(strings.TrimSpace(list), ", ")
	}

	// A session's turn, bob's: the notes tools alone.
	var s struct {
		ID string `json:"id"`
	}
	r := e.do("POST", "/v1/sessions", nil, bearer(e.bob))
	r.want(t, 201)
	r.decode(t, &s)
	var reply struct {
		Answer string `json:"answer"`
	}
	r = e.do("POST", "/v1/sessions/"+s.ID+"/messages", map[string]any{"content": "hello"}, bearer(e.bob))
	r.want(t, 200)
	r.decode(t, &reply)
	if got := given(reply.Answer); !sameSet(got, notesTools) {
		t.Errorf("bob's session turn was given %v, want %v", got, notesTools)
	}

	// A chat completion, alice's: the clock's tools alone; her call of a notes
	// tool is unknown to the turn and never runs.
	oc := openAIClient(e.env, e.alice)
	res, err := oc.Chat.Completions.New(chatCtx(t), openai.ChatCompletionNewParams{
		Model: "any", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hello")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := given(res.Choices[0].Message.Content); !sameSet(got, timeTools) {
		t.Errorf("alice's chat completion was given %v, want %v", got, timeTools)
	}
	res, err = oc.Chat.Completions.New(chatCtx(t), openai.ChatCompletionNewParams{
		Model: "any", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(`call put_note {"title": "from alice's chat", "text": "x"}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Choices[0].Message.Content; !strings.Contains(got, `unknown tool "put_note"; the tools available are: convert_time, current_time`) {
		t.Fatalf("alice's call of put_note in a chat: %s", got)
	}

	// The Responses and Messages APIs build their turns the same way.
	rr := e.do("POST", "/v1/responses", map[string]any{"model": "any", "input": "hello"}, bearer(e.alice))
	rr.want(t, 200)
	if !containsAll(rr.body, timeTools...) || strings.Contains(rr.body, "put_note") || strings.Contains(rr.body, "add_duration") {
		t.Errorf("alice's response: %s", rr.body)
	}
	mr := e.do("POST", "/v1/messages", map[string]any{"model": "any", "max_tokens": 100, "messages": []map[string]any{{"role": "user", "content": "hello"}}},
		"x-api-key: "+e.bob, "anthropic-version: 2023-06-01")
	mr.want(t, 200)
	if !containsAll(mr.body, notesTools...) || strings.Contains(mr.body, "convert_time") || strings.Contains(mr.body, "delete_note") {
		t.Errorf("bob's message: %s", mr.body)
	}

	refused := 0
	for _, l := range auditLines(t, audit) {
		if l["tool"] == "put_note" && l["subject"] == "alice" && l["outcome"] == "refused" {
			refused++
		} else if l["tool"] == "put_note" {
			t.Errorf("put_note audited as %v", l)
		}
	}
	if refused != 1 {
		t.Errorf("alice's refused call in a chat: %d audit lines, want 1:\n%s", refused, audit)
	}
	if r := e.do("POST", "/v1/tools/list_notes/call", `{"arguments": {}}`, bearer(e.root)); strings.Contains(r.body, "from alice") {
		t.Errorf("alice's chat call reached the notes server: %s", r.body)
	}
}

// mcpAt connects to path (/mcp, /mcp/NAME) with tok, speaking version ("": the
// newest).
func mcpAt(t *testing.T, e *env, path, tok, version string) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "profiles-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.url + path,
		HTTPClient: &http.Client{Transport: headerRT{"Bearer " + tok, &http.Transport{DisableKeepAlives: true}}}, MaxRetries: -1}, sessionOptions(version))
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func listNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	return out
}

// TestProfilesMCP: at /mcp a person lists and calls the union of their profiles'
// tools, at /mcp/{profile} that profile's alone (403 to a person outside it, or for
// a profile there is not); a call of another tool is an error result that never
// reaches the server; a session of one profile is not taken up at /mcp; and a live
// change of the profiles holds at once, for the sessions already open too.
func TestProfilesMCP(t *testing.T) {
	t.Parallel()
	pol := access.NewPolicy(testProfiles)
	e := startProfiles(t, pol)
	audit := auditOf(e.env, false)
	for _, version := range []string{"", "2025-11-25"} {
		alice, err := mcpAt(t, e.env, "/mcp", e.alice, version)
		if err != nil {
			t.Fatal(err)
		}
		if got := listNames(t, alice); !sameSet(got, timeTools) {
			t.Errorf("%q: alice at /mcp lists %v", version, got)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "put_note", Arguments: map[string]any{"title": "mcp alice", "text": "x"}})
		cancel()
		if err != nil || !res.IsError || !strings.Contains(tool.Text(res), `unknown tool "put_note"`) {
			t.Errorf("%q: alice's put_note at /mcp: %v %+v", version, err, res)
		}
		bob, err := mcpAt(t, e.env, "/mcp/notes", e.bob, version)
		if err != nil {
			t.Fatal(err)
		}
		if got := listNames(t, bob); !sameSet(got, notesTools) {
			t.Errorf("%q: bob at /mcp/notes lists %v", version, got)
		}
		ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
		prompts, err := bob.ListPrompts(ctx, nil)
		cancel()
		if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "review_notes" {
			t.Errorf("%q: bob's prompts: %v %+v", version, err, prompts)
		}
		// What alice's lists leave out, her reads and gets do not find.
		ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
		prompts, err = alice.ListPrompts(ctx, nil)
		if err != nil || len(prompts.Prompts) != 0 {
			t.Errorf("%q: alice's prompts: %v %+v", version, err, prompts)
		}
		resources, err := alice.ListResources(ctx, nil)
		if err != nil || len(resources.Resources) != 0 {
			t.Errorf("%q: alice's resources: %v %+v", version, err, resources)
		}
		if _, err := alice.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review_notes"}); err == nil || !strings.Contains(err.Error(), "unknown prompt") {
			t.Errorf("%q: alice got review_notes: %v", version, err)
		}
		if _, err := alice.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://index"}); err == nil {
			t.Errorf("%q: alice read notes://index", version)
		}
		if _, err := bob.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://index"}); err != nil {
			t.Errorf("%q: bob's read of notes://index: %v", version, err)
		}
		cancel()
		root, err := mcpAt(t, e.env, "/mcp/time", e.root, version)
		if err != nil {
			t.Fatal(err)
		}
		if got := listNames(t, root); !sameSet(got, timeTools) {
			t.Errorf("%q: root at /mcp/time lists %v", version, got)
		}
	}
	if r := e.do("POST", "/v1/tools/list_notes/call", `{"arguments": {}}`, bearer(e.root)); strings.Contains(r.body, "mcp alice") {
		t.Errorf("alice's call through /mcp reached the notes server: %s", r.body)
	}
	refused := 0
	for _, l := range auditLines(t, audit) {
		if l["subject"] == "alice" && l["tool"] == "put_note" && l["outcome"] == "refused" {
			refused++
		}
	}
	if refused != 2 {
		t.Errorf("alice's calls of put_note at /mcp: %d refused audit lines, want 2:\n%s", refused, audit)
	}
	for _, c := range [][2]string{{e.alice, "/mcp/notes"}, {e.mallory, "/mcp/time"}, {e.root, "/mcp/nope"}, {e.key, "/mcp/time"}} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		r := e.do("POST", c[1], body, bearer(c[0]), "Content-Type: application/json", "Accept: application/json, text/event-stream", "Mcp-Protocol-Version: 2026-07-28")
		if r.status != 403 || !strings.Contains(r.body, "not one of your profiles") || !strings.Contains(r.body, `"jsonrpc"`) {
			t.Errorf("POST %s: %d %s, want a JSON-RPC 403", c[1], r.status, r.body)
		}
	}
	if _, err := mcpAt(t, e.env, "/mcp/notes", e.alice, ""); err == nil {
		t.Error("alice connected at /mcp/notes")
	}
	key, err := mcpAt(t, e.env, "/mcp", e.key, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := listNames(t, key); !sameSet(got, notesTools) {
		t.Errorf("the application key at /mcp lists %v, want %v", got, notesTools)
	}

	// A session opened at /mcp/notes is bob's at that path only.
	older, err := mcpAt(t, e.env, "/mcp/notes", e.bob, "2025-11-25")
	if err != nil {
		t.Fatal(err)
	}
	r := e.do("POST", "/mcp", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, bearer(e.bob), "Mcp-Session-Id: "+older.ID(),
		"Content-Type: application/json", "Accept: application/json, text/event-stream", "Mcp-Protocol-Version: 2025-11-25")
	if r.status != 403 || !strings.Contains(r.body, "session user mismatch") {
		t.Errorf("bob's /mcp/notes session at /mcp: %d %s", r.status, r.body)
	}

	// A live change: timekeepers get the notes' reading tools too, at once, in the
	// sessions already open and in the API.
	alice, err := mcpAt(t, e.env, "/mcp", e.alice, "2025-11-25")
	if err != nil {
		t.Fatal(err)
	}
	changed := slices.Clone(testProfiles)
	changed[0].Servers = []string{"clock", "notes"}
	changed[0].Tools = tool.ToolFilter{Allow: []string{"current_time", "get_note", "list_notes"}}
	pol.Set(changed)
	want := []string{"current_time", "get_note", "list_notes"}
	if got := listNames(t, alice); !sameSet(got, want) {
		t.Errorf("after the change, alice's open session lists %v, want %v", got, want)
	}
	if got := e.toolNames(t, e.alice, ""); !sameSet(got, want) {
		t.Errorf("after the change, alice's GET /v1/tools = %v, want %v", got, want)
	}
	e.do("POST", "/v1/tools/convert_time/call", `{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}`, bearer(e.alice)).want(t, 404)
}

// TestProfilesNone: with no profiles configured everyone sees everything, as
// before profiles; ?profile= names none there is.
func TestProfilesNone(t *testing.T) {
	t.Parallel()
	e := startProfiles(t, access.NewPolicy(nil))
	if got := e.toolNames(t, e.mallory, ""); len(got) != 8 {
		t.Errorf("no profiles: mallory sees %v", got)
	}
	e.do("GET", "/v1/tools?profile=time", nil, bearer(e.mallory)).want(t, 403)
}

// TestProfilesDeferred: in deferred mode a turn's search tools find only the tools
// of the person's profiles, and a call by name of another never runs.
func TestProfilesDeferred(t *testing.T) {
	t.Parallel()
	e := startProfilesAgent(t, access.NewPolicy(testProfiles), func(o *agent.Options) {
		o.Deferred = &deferred.Policy{Mode: deferred.Always}
	})
	chat := func(tok, text string) string {
		t.Helper()
		oc := openAIClient(e.env, tok)
		res, err := oc.Chat.Completions.New(chatCtx(t), openai.ChatCompletionNewParams{
			Model: "any", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)},
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.Choices[0].Message.Content
	}
	if got := chat(e.alice, `call tool_search_regex {"pattern": "note|time"}`); !containsAll(got, timeTools...) || strings.Contains(got, "_note") {
		t.Errorf("alice's regex search: %s", got)
	}
	if got := chat(e.bob, `call tool_search {"query": "save a note", "limit": 10}`); !strings.Contains(got, "put_note") || containsAny(got, "delete_note", "convert_time") {
		t.Errorf("bob's search: %s", got)
	}
	if got := chat(e.alice, `call put_note {"title": "deferred alice", "text": "x"}`); !strings.Contains(got, "put_note failed") {
		t.Errorf("alice's deferred call of put_note: %s", got)
	}
	if r := e.do("POST", "/v1/tools/list_notes/call", `{"arguments": {}}`, bearer(e.root)); strings.Contains(r.body, "deferred alice") {
		t.Errorf("alice's deferred call reached the notes server: %s", r.body)
	}
}

func containsAny(s string, subs ...string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}

// TestProfilesServers: a person sees only the servers of their profiles — in GET
// /v1/servers, GET /v1/servers/{name} (another's is a 404 that names only theirs)
// and the snapshot of /v1/events — and an admin every server.
func TestProfilesServers(t *testing.T) {
	t.Parallel()
	e := startProfiles(t, access.NewPolicy(testProfiles))
	names := func(tok string) []string {
		t.Helper()
		r := e.do("GET", "/v1/servers", nil, bearer(tok))
		r.want(t, 200)
		var body apiwire.Servers
		r.decode(t, &body)
		var out []string
		for _, s := range body.Servers {
			out = append(out, s.Name)
		}
		return out
	}
	for _, c := range []struct {
		who, tok string
		want     []string
	}{{"alice", e.alice, []string{"clock"}}, {"bob", e.bob, []string{"notes"}}, {"mallory", e.mallory, nil}, {"root", e.root, []string{"clock", "notes"}}, {"the key", e.key, []string{"notes"}}} {
		if got := names(c.tok); !sameSet(got, c.want) {
			t.Errorf("%s: GET /v1/servers = %v, want %v", c.who, got, c.want)
		}
	}
	e.do("GET", "/v1/servers/clock", nil, bearer(e.alice)).want(t, 200)
	r := e.do("GET", "/v1/servers/notes", nil, bearer(e.alice))
	r.want(t, 404)
	if _, _, sugg := r.errorOf(t); !slices.Equal(sugg, []string{"clock"}) {
		t.Errorf("alice's 404 for notes suggests %v, want only clock", sugg)
	}
	e.do("GET", "/v1/servers/notes", nil, bearer(e.root)).want(t, 200)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.url+"/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+e.bob)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	buf := make([]byte, 64<<10)
	n, _ := io.ReadAtLeast(res.Body, buf, 1)
	for !strings.Contains(string(buf[:n]), "\n\n") && n < len(buf) {
		m, err := res.Body.Read(buf[n:])
		n += m
		if err != nil {
			break
		}
	}
	snap := string(buf[:n])
	if !strings.Contains(snap, `"name":"notes"`) && !strings.Contains(snap, `"name": "notes"`) {
		t.Errorf("bob's snapshot lacks notes: %s", snap)
	}
	if strings.Contains(snap, `"name":"clock"`) || strings.Contains(snap, `"name": "clock"`) {
		t.Errorf("bob's snapshot shows clock, a server of no profile of his: %s", snap)
	}
}
