package api_test

import (
	"bytes"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// extrasServer is the test server with --extras (resources, a template, prompts)
// named name; its reads and prompts time out after toolTimeout.
func extrasServer(t testing.TB, name string, toolTimeout time.Duration) config.Server {
	s := testserver.Stdio(t, name, "--extras", "--name", name)
	s.ToolTimeout = toolTimeout
	return s
}

// everythingServer is @modelcontextprotocol/server-everything over stdio.
func everythingServer(t testing.TB) config.Server {
	return config.Server{Name: "ev", Transport: config.Stdio, Command: testenv.NPMBin(t, testenv.ServerEverything), InheritEnv: true,
		InitTimeout: 30 * time.Second, ToolTimeout: 30 * time.Second}
}

type listedResource struct {
	URI, Name, Title, Description, MIMEType, Server string
	Size                                            int64
}

type listedTemplate struct {
	URITemplate, Name, Description, MIMEType, Server string
}

type listedPrompt struct {
	Name, Title, Description, Server string
	Arguments                        []promptArg
}

type promptArg struct {
	Name     string
	Required bool
}

type readAnswer struct {
	URI, Server string
	Contents    []struct {
		URI, MIMEType string
		Text          *string
		Blob          []byte
	}
}

type promptAnswer struct {
	Name, Server, Description string
	Messages                  []struct {
		Role, Text string
		Content    struct{ Type, Text string }
	}
}

func (e *env) read(t *testing.T, uri string) readAnswer {
	t.Helper()
	var a readAnswer
	r := e.do("GET", "/v1/resources/read?uri="+url.QueryEscape(uri), nil)
	r.want(t, 200)
	r.decode(t, &a)
	if a.URI != uri || len(a.Contents) == 0 {
		t.Fatalf("read %s: %s", uri, r.body)
	}
	return a
}

func (e *env) prompt(t *testing.T, name, body string) promptAnswer {
	t.Helper()
	var a promptAnswer
	r := e.do("POST", "/v1/prompts/"+url.PathEscape(name)+"/get", body)
	r.want(t, 200)
	r.decode(t, &a)
	return a
}

// wantError fails unless r is an error of that status and code whose message has
// every sub.
func (r response) wantError(t *testing.T, status int, code string, subs ...string) []string {
	t.Helper()
	r.want(t, status)
	got, msg, sugg := r.errorOf(t)
	if got != code {
		t.Errorf("code %q, want %q: %s", got, code, r.body)
	}
	for _, s := range subs {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q does not say %q", msg, s)
		}
	}
	return sugg
}

// TestResources: the resources, templates and prompts of the test server and of
// server-everything, listed together, each with its server; a text read, a blob read
// (base64), reads through templates, prompts with arguments; and every error: no
// uri, an unknown one, one its server has not, a server's failure (502) and its
// timeout (503), a prompt's missing, unknown and non-string arguments, an unknown
// prompt (404 with the close names), malformed bodies, another method, no token.
func TestResources(t *testing.T) {
	t.Parallel()
	const token = "tok-res-7Hq"
	e := start(t, setup{servers: []config.Server{extrasServer(t, "ts", 2*time.Second), everythingServer(t)}, opts: api.Options{Token: token}})

	var rs struct{ Resources []listedResource }
	e.do("GET", "/v1/resources", nil).decode(t, &rs)
	byURI := map[string]listedResource{}
	servers := map[string]int{}
	for _, r := range rs.Resources {
		byURI[r.URI] = r
		servers[r.Server]++
	}
	if n := byURI["test://extras/notes.txt"]; n.Server != "ts" || n.Name != "notes" || n.Title != "Notes of ts" || n.MIMEType != "text/plain" || n.Description != "a text resource" {
		t.Errorf("notes.txt listed as %+v", n)
	}
	if p := byURI["test://extras/pixel.png"]; p.Server != "ts" || p.MIMEType != "image/png" || p.Size == 0 {
		t.Errorf("pixel.png listed as %+v", p)
	}
	if servers["ts"] != 6 || servers["ev"] == 0 || len(servers) != 2 {
		t.Errorf("resources by server: %v", servers)
	}
	var evDoc string
	for _, r := range rs.Resources {
		if r.Server == "ev" && strings.HasPrefix(r.URI, "demo://") && evDoc == "" {
			evDoc = r.URI
		}
	}

	var ts struct{ Templates []listedTemplate }
	e.do("GET", "/v1/resources/templates", nil).decode(t, &ts)
	tmpl := map[string]listedTemplate{}
	for _, x := range ts.Templates {
		tmpl[x.URITemplate] = x
	}
	if x := tmpl["test://extras/items/{id}"]; x.Server != "ts" || x.Name != "item" || x.MIMEType != "text/plain" {
		t.Errorf("the test server's template: %+v (all: %+v)", x, ts.Templates)
	}
	if x := tmpl["demo://resource/dynamic/blob/{resourceId}"]; x.Server != "ev" {
		t.Errorf("server-everything's blob template: %+v", x)
	}

	// Text as text, blobs as base64 with their type.
	a := e.read(t, "test://extras/notes.txt")
	if c := a.Contents[0]; a.Server != "ts" || c.Text == nil || *c.Text != "notes of ts" || c.MIMEType != "text/plain" || c.Blob != nil {
		t.Errorf("notes.txt read as %+v", a)
	}
	r := e.do("GET", "/v1/resources/read?uri="+url.QueryEscape("test://extras/pixel.png"), nil)
	r.want(t, 200, `"blob": "iVBORw0KGgo`, `"mimeType": "image/png"`)
	if strings.Contains(r.body, `"text"`) {
		t.Errorf("a blob with a text field: %s", r.body)
	}
	a = e.read(t, "test://extras/data.bin")
	want := make([]byte, 256)
	for i := range want {
		want[i] = byte(i)
	}
	if c := a.Contents[0]; !bytes.Equal(c.Blob, want) || c.Text != nil || c.MIMEType != "application/octet-stream" {
		t.Errorf("data.bin read as %+v", c)
	}
	if evDoc == "" {
		t.Fatalf("no demo:// resource of server-everything listed: %+v", rs.Resources)
	}
	if a = e.read(t, evDoc); a.Server != "ev" || a.Contents[0].Text == nil {
		t.Errorf("%s read as %+v", evDoc, a)
	}
	// Through templates.
	if a = e.read(t, "test://extras/items/42"); a.Server != "ts" || *a.Contents[0].Text != "item 42 of ts" {
		t.Errorf("item 42 read as %+v", a)
	}
	a = e.read(t, "demo://resource/dynamic/blob/3")
	if c := a.Contents[0]; a.Server != "ev" || !strings.HasPrefix(string(c.Blob), "Resource 3: ") {
		t.Errorf("server-everything's blob 3 read as %+v", a)
	}

	// The reads' errors.
	e.do("GET", "/v1/resources/read", nil).wantError(t, 400, "bad_request", "uri")
	e.do("GET", "/v1/resources/read?uri=", nil).wantError(t, 400, "bad_request", "uri")
	e.do("GET", "/v1/resources/read?uri="+url.QueryEscape("nothing://here"), nil).wantError(t, 404, "not_found", `"nothing://here"`, "GET /v1/resources")
	e.do("GET", "/v1/resources/read?uri="+url.QueryEscape("switchboard://nobody/test://extras/notes.txt"), nil).wantError(t, 404, "not_found")
	e.do("GET", "/v1/resources/read?uri="+url.QueryEscape("switchboard://ts/test://extras/missing"), nil).wantError(t, 404, "not_found", `server "ts" has no such resource`)
	e.do("GET", "/v1/resources/read?uri="+url.QueryEscape("test://extras/broken"), nil).wantError(t, 502, "upstream_error", `server "ts" failed`, "the disk of ts is on fire")
	e.do("GET", "/v1/resources/read?uri="+url.QueryEscape("test://extras/slow"), nil).wantError(t, 503, "unavailable", `server "ts" did not answer`, "timed out")

	// Prompts, each with its server and its arguments.
	var ps struct{ Prompts []listedPrompt }
	e.do("GET", "/v1/prompts", nil).decode(t, &ps)
	byName := map[string]listedPrompt{}
	for _, p := range ps.Prompts {
		byName[p.Name] = p
	}
	if g := byName["greet"]; g.Server != "ts" || g.Title != "Greeting" || len(g.Arguments) != 2 || g.Arguments[0].Name != "who" || !g.Arguments[0].Required || g.Arguments[1].Required {
		t.Errorf("greet listed as %+v", g)
	}
	if p := byName["plain"]; p.Server != "ts" || p.Arguments == nil || len(p.Arguments) != 0 {
		t.Errorf("plain listed as %+v", p)
	}
	if p := byName["args-prompt"]; p.Server != "ev" || !slices.Contains(p.Arguments, promptArg{"city", true}) {
		t.Errorf("server-everything's args-prompt listed as %+v", p)
	}

	g := e.prompt(t, "greet", `{"arguments": {"who": "Ada"}}`)
	if g.Server != "ts" || g.Description != "a greeting from ts" || len(g.Messages) != 2 ||
		g.Messages[0].Role != "user" || g.Messages[0].Text != "Greet Ada kindly." || g.Messages[0].Content.Type != "text" ||
		g.Messages[1].Role != "assistant" || g.Messages[1].Text != "Hello, Ada, from ts!" {
		t.Errorf("greet: %+v", g)
	}
	if g = e.prompt(t, "greet", `{"arguments": {"who": "Bo", "mood": "loudly"}}`); g.Messages[0].Text != "Greet Bo loudly." {
		t.Errorf("greet with a mood: %+v", g)
	}
	if g = e.prompt(t, "plain", ``); len(g.Messages) != 1 || g.Messages[0].Text != "plain prompt of ts" {
		t.Errorf("plain without a body: %+v", g)
	}
	if g = e.prompt(t, "args-prompt", `{"arguments": {"city": "Paris"}}`); g.Server != "ev" || len(g.Messages) != 1 || g.Messages[0].Text != "What's weather in Paris?" {
		t.Errorf("server-everything's args-prompt: %+v", g)
	}

	// The prompts' errors.
	e.do("POST", "/v1/prompts/greet/get", `{"arguments": {}}`).wantError(t, 400, "bad_request", `"who" is required`)
	e.do("POST", "/v1/prompts/greet/get", `{"arguments": {"who": "Ada", "colour": "red"}}`).wantError(t, 400, "bad_request", `no argument "colour"`, "who, mood")
	e.do("POST", "/v1/prompts/plain/get", `{"arguments": {"x": "1"}}`).wantError(t, 400, "bad_request", `takes no arguments, not "x"`)
	e.do("POST", "/v1/prompts/greet/get", `{"arguments": {"who": 7}}`).wantError(t, 400, "bad_request", `"who" is a number`)
	e.do("POST", "/v1/prompts/greet/get", `{"arguments": "who"}`).wantError(t, 400, "bad_json", `"arguments"`)
	e.do("POST", "/v1/prompts/greet/get", `{"arguments": {"who": "Ada"`).wantError(t, 400, "bad_json", "offset")
	e.do("POST", "/v1/prompts/greet/get", `{"args": {}}`).wantError(t, 400, "bad_json", "args")
	if sugg := e.do("POST", "/v1/prompts/gret/get", `{}`).wantError(t, 404, "not_found", `unknown prompt "gret"`); !slices.Contains(sugg, "greet") {
		t.Errorf("suggestions for gret: %v", sugg)
	}
	if sugg := e.do("POST", "/v1/prompts/zzzzzzzzzzzzzz/get", `{}`).wantError(t, 404, "not_found"); !slices.Contains(sugg, "plain") {
		t.Errorf("without a close name the suggestions are the names there are: %v", sugg)
	}

	// Other methods; no token.
	for _, m := range []struct{ method, path string }{{"POST", "/v1/resources"}, {"DELETE", "/v1/resources/templates"}, {"POST", "/v1/resources/read"}, {"PUT", "/v1/prompts"}, {"GET", "/v1/prompts/greet/get"}} {
		e.do(m.method, m.path, nil).wantError(t, 405, "method_not_allowed")
	}
	for _, path := range []string{"/v1/resources", "/v1/resources/templates", "/v1/resources/read?uri=test://extras/notes.txt", "/v1/prompts"} {
		e.do("GET", path, nil, "Authorization: ").wantError(t, 401, "unauthorized")
	}
	e.do("POST", "/v1/prompts/greet/get", `{"arguments": {"who": "Ada"}}`, "Authorization: ").wantError(t, 401, "unauthorized")

	// A log line for each read and prompt, naming the server and the request, not
	// the arguments' values.
	reads := e.logs.LogLines(t, "resource read over the API")
	if !slices.ContainsFunc(reads, func(l map[string]any) bool {
		return l["server"] == "ts" && l["uri"] == "test://extras/notes.txt" && l["request_id"] != nil
	}) {
		t.Errorf("no log line of the read of notes.txt: %v", reads)
	}
	gets := e.logs.LogLines(t, "prompt got over the API")
	if !slices.ContainsFunc(gets, func(l map[string]any) bool {
		return l["server"] == "ts" && l["prompt"] == "greet" && fmt.Sprint(l["arguments"]) == "[mood who]" && l["request_id"] != nil
	}) {
		t.Errorf("no log line of greet with its arguments' names: %v", gets)
	}
	if strings.Contains(e.logs.String(), "loudly") {
		t.Errorf("the log has an argument's value")
	}
}

// TestResourcesTwoServers: two servers that offer the same resources, template and
// prompts: each gets its own exposed URI and name, listed with its server, and a
// read or a prompt reaches that server.
func TestResourcesTwoServers(t *testing.T) {
	t.Parallel()
	e := start(t, setup{servers: []config.Server{extrasServer(t, "alpha", 5*time.Second), extrasServer(t, "beta", 5*time.Second)}})
	var rs struct{ Resources []listedResource }
	e.do("GET", "/v1/resources", nil).decode(t, &rs)
	for _, srv := range []string{"alpha", "beta"} {
		uri := "switchboard://" + srv + "/test://extras/notes.txt"
		if !slices.ContainsFunc(rs.Resources, func(r listedResource) bool { return r.URI == uri && r.Server == srv }) {
			t.Errorf("no %s of %s in %+v", uri, srv, rs.Resources)
		}
		if a := e.read(t, uri); a.Server != srv || *a.Contents[0].Text != "notes of "+srv || a.Contents[0].URI != uri {
			t.Errorf("%s read as %+v", uri, a)
		}
		if a := e.read(t, "switchboard://"+srv+"/test://extras/items/7"); *a.Contents[0].Text != "item 7 of "+srv {
			t.Errorf("item 7 of %s read as %+v", srv, a)
		}
	}
	var ts struct{ Templates []listedTemplate }
	e.do("GET", "/v1/resources/templates", nil).decode(t, &ts)
	if len(ts.Templates) != 2 || ts.Templates[0].Server != "alpha" || ts.Templates[1].URITemplate != "switchboard://beta/test://extras/items/{id}" {
		t.Errorf("templates: %+v", ts.Templates)
	}
	var ps struct{ Prompts []listedPrompt }
	e.do("GET", "/v1/prompts", nil).decode(t, &ps)
	seen := map[string]bool{}
	for _, p := range ps.Prompts {
		if !strings.HasSuffix(p.Name, "greet") {
			continue
		}
		seen[p.Server] = true
		if g := e.prompt(t, p.Name, `{"arguments": {"who": "Ada"}}`); g.Server != p.Server || g.Messages[1].Text != "Hello, Ada, from "+p.Server+"!" {
			t.Errorf("%s: %+v", p.Name, g)
		}
	}
	if !seen["alpha"] || !seen["beta"] {
		t.Errorf("greet of each server not listed: %+v", ps.Prompts)
	}
}
