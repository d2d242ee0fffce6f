package main

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// searchOutput is the shape of `search --json` and of each line in stdin mode.
type searchOutput struct {
	Query   string `json:"query"`
	Results []struct {
		Name   string  `json:"name"`
		Server string  `json:"server"`
		Score  float64 `json:"score"`
	} `json:"results"`
	Error string `json:"error"`
}

func (o searchOutput) names() []string {
	var out []string
	for _, r := range o.Results {
		out = append(out, r.Name)
	}
	return out
}

// checkResults fails unless every result is a demo tool under its own server, with a
// positive score, best first.
func checkResults(t *testing.T, o searchOutput) {
	t.Helper()
	for i, r := range o.Results {
		if demoTools[r.Name] != r.Server || r.Score <= 0 || (i > 0 && r.Score > o.Results[i-1].Score) {
			t.Errorf("%q: result %d = %+v", o.Query, i, r)
		}
	}
}

func TestSearch(t *testing.T) {
	t.Parallel()
	t.Run("text", func(t *testing.T) {
		t.Parallel()
		r := newSandbox(t).run("search", "current", "time", "in", "a", "zone")
		r.wantCode(t, exitOK)
		rows := tableRows(strings.Replace(r.stdout, "#  TOOL", "TOOL", 1))
		if row := rows["1"]; len(row) < 5 || row[1] != "current_time" || row[2] != "clock" || !strings.HasPrefix(strings.Join(row[4:], " "), "Returns the current date") {
			t.Errorf("first row = %q\n%s", row, r)
		}
		r.wantStdout(t, "#  TOOL", "SERVER", "SCORE", "DESCRIPTION")
		if strings.Contains(r.stderr, "switchboard search:") {
			t.Errorf("every server is ready: no report expected\n%s", r)
		}
	})
	t.Run("json and limit", func(t *testing.T) {
		t.Parallel()
		r := newSandbox(t).run("search", "--json", "--limit", "2", "note")
		r.wantCode(t, exitOK)
		var o searchOutput
		decodeJSON(t, r.stdout, &o)
		if o.Query != "note" || len(o.Results) != 2 || o.Results[0].Server != "notes" {
			t.Errorf("output = %+v", o)
		}
		checkResults(t, o)
	})
	t.Run("regex", func(t *testing.T) {
		t.Parallel()
		r := newSandbox(t).run("search", "--regex", "--json", "^(list|get)_")
		r.wantCode(t, exitOK)
		var o searchOutput
		decodeJSON(t, r.stdout, &o)
		if got := strings.Join(o.names(), " "); got != "get_note list_notes" {
			t.Errorf("names = %q, want the two tools whose names match, by name\n%s", got, r)
		}
		checkResults(t, o)
	})
	t.Run("no match", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		r := s.run("search", "jot down a memo")
		r.wantCode(t, exitFailed)
		r.wantStdout(t, `No tools match the query "jot down a memo" (searched 8 tools).`)
		r = s.run("search", "--json", "--regex", "zzz")
		r.wantCode(t, exitFailed)
		var o searchOutput
		decodeJSON(t, r.stdout, &o)
		if o.Query != "zzz" || o.Results == nil || len(o.Results) != 0 {
			t.Errorf("output = %s, want an empty results list", r.stdout)
		}
	})
	t.Run("stdin", func(t *testing.T) {
		t.Parallel()
		in := "current time\n\n  \nsave a note\nzzzqqq\n"
		r := newSandbox(t).runStdin(&in, "search", "--limit", "3")
		r.wantCode(t, exitOK)
		lines := nonEmptyLines(r.stdout)
		want := []string{"current time", "save a note", "zzzqqq"}
		if len(lines) != len(want) {
			t.Fatalf("want %d lines, one per query\n%s", len(want), r)
		}
		for i, line := range lines {
			var o searchOutput
			decodeJSON(t, line, &o)
			if o.Query != want[i] || o.Error != "" || len(o.Results) > 3 {
				t.Errorf("line %d = %s", i, line)
			}
			checkResults(t, o)
		}
		for i, first := range []string{"current_time", "put_note"} {
			var o searchOutput
			decodeJSON(t, lines[i], &o)
			if len(o.Results) == 0 || o.Results[0].Name != first {
				t.Errorf("%q: first result %v, want %s", want[i], o.names(), first)
			}
		}
		if !strings.Contains(lines[2], `"results":[]`) {
			t.Errorf("a query without a match gives an empty list: %s", lines[2])
		}
	})
	// A bad pattern on one line is that line's error; the run goes on.
	t.Run("stdin regex", func(t *testing.T) {
		t.Parallel()
		in := "note$\n(unclosed\n^add_\n"
		r := newSandbox(t).runStdin(&in, "search", "--regex")
		r.wantCode(t, exitOK)
		lines := nonEmptyLines(r.stdout)
		if len(lines) != 3 {
			t.Fatalf("want 3 lines\n%s", r)
		}
		var o [3]searchOutput
		for i := range lines {
			decodeJSON(t, lines[i], &o[i])
		}
		if got := strings.Join(o[0].names(), " "); got != "delete_note get_note put_note" {
			t.Errorf("note$ = %q", got)
		}
		if o[1].Query != "(unclosed" || o[1].Results != nil ||
			o[1].Error != "pattern \"(unclosed\" is not a valid regular expression (Go RE2 syntax): error parsing regexp: missing closing ): `(unclosed`" {
			t.Errorf("bad pattern's line = %s", lines[1])
		}
		if got := strings.Join(o[2].names(), " "); got != "add_duration" {
			t.Errorf("^add_ = %q", got)
		}
	})
	t.Run("stdin nothing matched", func(t *testing.T) {
		t.Parallel()
		in := "zzzqqq\n(\n"
		r := newSandbox(t).runStdin(&in, "search", "--regex")
		r.wantCode(t, exitFailed)
		if n := len(nonEmptyLines(r.stdout)); n != 2 {
			t.Errorf("want 2 lines\n%s", r)
		}
	})
	// Input with no query (nothing, or blank lines) is a usage error, not "nothing
	// matched" with no word of why.
	t.Run("stdin without a query", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		for _, in := range []string{"", "\n  \n"} {
			r := s.runStdin(&in, "search")
			r.wantCode(t, exitUsage)
			r.wantStderr(t, "switchboard: no query: give QUERY")
			if r.stdout != "" {
				t.Errorf("stdin %q: stdout %q, want nothing", in, r.stdout)
			}
		}
	})
	// Bad patterns and limits are usage errors, found before any server starts.
	t.Run("usage errors", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"--regex", "(bad"}, "switchboard: pattern \"(bad\" is not a valid regular expression (Go RE2 syntax): error parsing regexp: missing closing ): `(bad`\n"},
			{[]string{"--limit", "0", "time"}, "switchboard: --limit 0 is out of range: give 1 to 50 (default 5, or 10 with --regex)\n" + helpHint},
			{[]string{"--limit", "51", "--regex", "time"}, "--limit 51 is out of range: give 1 to 50"},
			{[]string{"--limit", "-3"}, "--limit -3 is out of range"},
			{[]string{"--limit", "many", "time"}, `invalid argument "many" for "--limit"`},
			{[]string{"  "}, "switchboard: the query is empty: describe the tool you need in a few words\n"},
			{[]string{"--regex", strings.Repeat("a", 201)}, "switchboard: the pattern is 201 characters long; the limit is 200\n"},
			{[]string{"--regex", "a", "b"}, "switchboard search --regex: want one PATTERN (quote it), got 2 arguments"},
		} {
			r := s.run(append([]string{"search"}, c.args...)...)
			r.wantCode(t, exitUsage)
			r.wantStderr(t, c.want)
			if r.stdout != "" || strings.Contains(r.stderr, "connecting") {
				t.Errorf("a usage error prints nothing and starts no server\n%s", r)
			}
		}
	})
	t.Run("help", func(t *testing.T) {
		t.Parallel()
		r := runInProcess(t, "search", "--help")
		r.wantCode(t, exitOK)
		r.wantStdout(t, "search [QUERY]", "--regex", "--limit", "--json", "stdin",
			"starts the servers itself (it does not ask a running switchboard,\nunless --server or $SWITCHBOARD_SERVER names one: see below)",
			`"switchboard": {"search": {"embeddings"`,
			"Exit codes: 0 a tool matched (with stdin: some query matched), 1 nothing matched")
		if !commandList(runInProcess(t, "--help").stdout)["search"] {
			t.Errorf("the main help does not list search")
		}
	})
}

// TestSearchNotReady: a server that failed is named on stderr, since its tools
// cannot be found; the search runs over the rest.
func TestSearchNotReady(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	path := s.writeConfig("mcp.json", `{"mcpServers": {
  "clock": `+demoEntry(t, "clock")+`,
  "crashy": {"command": `+jsonString(testserver.Build(t))+`, "args": ["--crash-at-start"]}
}}`)
	r := s.run("--config", path, "search", "--json", "time")
	r.wantCode(t, exitOK)
	r.wantStderr(t, "switchboard search: searching 3 tools from 1 of 2 servers (1 failed: crashy)")
	var o searchOutput
	decodeJSON(t, r.stdout, &o)
	if len(o.Results) == 0 || o.Results[0].Server != "clock" {
		t.Errorf("output = %+v", o)
	}
}

// TestSearchEmbeddings: with switchboard.search.embeddings in the config, a request in
// other words than the tools' finds them (the fake's thesaurus puts "memo" with
// "note"); a dead endpoint leaves the lexical search, with one warning, and the key is
// never shown.
func TestSearchEmbeddings(t *testing.T) {
	t.Parallel()
	const key = "sk-embed-secret-1234"
	var fail atomic.Bool
	fake := fakellm.StartEmbeddings(t, &fakellm.EmbeddingsOptions{Fail: func(r fakellm.EmbeddingsRequest) (int, string) {
		if fail.Load() {
			// An endpoint that echoes what it got: the key must not reach the log.
			return http.StatusInternalServerError, "boom for " + r.Header.Get("Authorization")
		}
		return 0, ""
	}})
	s := newSandbox(t)
	s.env["EMBED_KEY"] = key
	path := s.writeConfig("mcp.json", `{"mcpServers": {
  "clock": `+demoEntry(t, "clock")+`,
  "notes": `+demoEntry(t, "notes")+`
}, "switchboard": {"search": {"embeddings": {"baseURL": `+jsonString(fake.URL)+`, "model": "fake-embed", "apiKeyEnv": "EMBED_KEY"}}}}`)

	in := "jot down a memo\nwhat hour is it\n"
	r := s.runStdin(&in, "--config", path, "search")
	r.wantCode(t, exitOK)
	lines := nonEmptyLines(r.stdout)
	if len(lines) != 2 {
		t.Fatalf("want 2 lines\n%s", r)
	}
	var memo, hour searchOutput
	decodeJSON(t, lines[0], &memo)
	decodeJSON(t, lines[1], &hour)
	if len(memo.Results) == 0 || memo.Results[0].Server != "notes" {
		t.Errorf("jot down a memo: %+v, want a notes tool first", memo.Results)
	}
	if len(hour.Results) == 0 || hour.Results[0].Server != "clock" {
		t.Errorf("what hour is it: %+v, want a clock tool first", hour.Results)
	}
	// Each tool once, then each query alone; every request with the key.
	inputs := fake.Inputs()
	if len(inputs) != 8+2 || inputs[8] != "jot down a memo" || inputs[9] != "what hour is it" {
		t.Errorf("embedded %d inputs %q, want the 8 tools and then the 2 queries", len(inputs), inputs)
	}
	for _, req := range fake.Requests() {
		if req.Header.Get("Authorization") != "Bearer "+key || req.Model != "fake-embed" {
			t.Errorf("request model %q, authorization %q", req.Model, req.Header.Get("Authorization"))
		}
	}

	fail.Store(true)
	r = s.run("--config", path, "search", "--json", "what hour is it")
	r.wantCode(t, exitOK)
	var o searchOutput
	decodeJSON(t, r.stdout, &o)
	if got := strings.Join(o.names(), " "); got != "add_duration" {
		t.Errorf("with the endpoint failing: %q, want the lexical result add_duration\n%s", got, r)
	}
	if n := strings.Count(r.stderr, "the embeddings endpoint failed"); n != 1 {
		t.Errorf("want one warning, got %d\n%s", n, r)
	}
	r.wantStderr(t, "boom for Bearer ")
	if strings.Contains(r.stderr+r.stdout, key) {
		t.Errorf("the API key is shown\n%s", r)
	}
}
