package search

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/tool"
)

func TestWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"getHTTPStatus", []string{"get", "http", "status"}},
		{"list_pull-requests.v2", []string{"list", "pull", "requests", "v2"}},
		{"s3Bucket ipv4", []string{"s3", "bucket", "ipv4"}},
		{"Créer un fichier", []string{"créer", "un", "fichier"}},
	} {
		var got []string
		words(c.in, func(w []byte) { got = append(got, string(w)) })
		if !slices.Equal(got, c.want) {
			t.Errorf("words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"creates": "create", "creating": "create", "created": "create",
		"files": "file", "queries": "queri", "query": "queri", "status": "status",
		"analysis": "analysis", "ipv4": "ipv4", "get": "get", "hopping": "hop",
	} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func schema(t *testing.T, props map[string]string, required ...string) json.RawMessage {
	t.Helper()
	p := map[string]any{}
	for n, typ := range props {
		p[n] = map[string]any{"type": typ, "description": "the " + n}
	}
	b, err := json.Marshal(map[string]any{"type": "object", "properties": p, "required": required})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func catalog(t *testing.T) []tool.Tool {
	return []tool.Tool{
		{Name: "github_create_issue", OriginalName: "create_issue", Server: "github", Description: "Create a new issue in a repository.",
			InputSchema: schema(t, map[string]string{"repo": "string", "title": "string", "body": "string"}, "repo", "title")},
		{Name: "github_list_issues", OriginalName: "list_issues", Server: "github", Description: "List issues of a repository.",
			InputSchema: schema(t, map[string]string{"repo": "string", "state": "string"}, "repo")},
		{Name: "weather_get_forecast", OriginalName: "getForecast", Server: "weather", Description: "Get the weather forecast for a city.",
			InputSchema: schema(t, map[string]string{"city": "string", "days": "integer"}, "city")},
		{Name: "dns_lookup", OriginalName: "lookup", Server: "dns", Description: "Resolve a DNS zone's records.",
			InputSchema: schema(t, map[string]string{"zone": "string", "format": "string"}, "zone")},
	}
}

func names(rs []Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Tool.Name)
	}
	return out
}

func TestSearch(t *testing.T) {
	ix := New(catalog(t))
	for _, c := range []struct {
		query string
		first string
	}{
		{"open a new issue", "github_create_issue"},
		{"what's the weather forecast in Paris tomorrow", "weather_get_forecast"},
		{"forecasts", "weather_get_forecast"},             // shared prefix
		{"forecasting", "weather_get_forecast"},           // long shared prefix
		{"fetch the repos' issues", "github_list_issues"}, // synonym and abbreviation
		{"resolve the records of a zone", "dns_lookup"},
	} {
		got := ix.Search(c.query, 5)
		if len(got) == 0 || got[0].Tool.Name != c.first {
			t.Errorf("Search(%q) = %q, want %s first", c.query, names(got), c.first)
		}
	}
	if got := ix.Search("zzz unknown words", 5); len(got) != 0 {
		t.Errorf("Search with no shared term = %q, want nothing", names(got))
	}
	if got := ix.Search("issue", 1); len(got) != 1 {
		t.Errorf("Search limit 1 gave %d results", len(got))
	}
}

// Equal scores are ordered by name, whatever the catalog order.
func TestSearchOrderIsDeterministic(t *testing.T) {
	tools := catalog(t)
	a := names(New(tools).Search("repository", 5))
	slices.Reverse(tools)
	b := names(New(tools).Search("repository", 5))
	if !slices.Equal(a, b) || len(a) != 2 {
		t.Errorf("order depends on the catalog: %q vs %q", a, b)
	}
}

func TestRegex(t *testing.T) {
	ix := New(catalog(t))
	got, err := ix.Regex("ISSUE", 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"github_create_issue", "github_list_issues"}; !slices.Equal(names(got), want) {
		t.Errorf("Regex(ISSUE) = %q, want %q", names(got), want)
	}
	// A name match ranks above a match in a parameter's description.
	got, _ = ix.Regex("zone|forecast", 10)
	if want := []string{"weather_get_forecast", "dns_lookup"}; !slices.Equal(names(got), want) {
		t.Errorf("Regex(zone|forecast) = %q, want %q", names(got), want)
	}
	if _, err := ix.Regex("(", 10); err == nil {
		t.Error("Regex(\"(\") compiled")
	}
}

// A request that needs two tools gets one of each kind in a short list, not two
// variants of the first.
func TestSearchDiversifies(t *testing.T) {
	ix := New([]tool.Tool{
		{Name: "weather_forecast", Description: "Daily weather forecast for a city."},
		{Name: "weather_forecast_hourly", Description: "Hourly weather forecast for a city."},
		{Name: "weather_forecast_marine", Description: "Weather forecast for a coast."},
		{Name: "send_email", Description: "Send an email."},
		{Name: "send_sms", Description: "Send a text message."},
		{Name: "list_email", Description: "List email in a mailbox."},
	})
	got := names(ix.Search("get the daily weather forecast for Paris and email it to me", 2))
	if want := []string{"weather_forecast", "send_email"}; !slices.Equal(got, want) {
		t.Errorf("Search = %q, want %q", got, want)
	}
}

// Update over a changed catalog ranks exactly as a fresh index of it does.
func TestUpdate(t *testing.T) {
	tools := catalog(t)
	old := New(tools)
	changed := slices.Clone(tools[1:]) // github_create_issue removed
	changed[0].Description = "List the defects of a repository."
	changed = append(changed, tool.Tool{Name: "jira_create_ticket", Server: "jira", Description: "Open a new ticket."})
	upd, fresh := old.Update(changed), New(changed)
	for _, q := range []string{"defects", "tickets", "create an issue", "weather forecast", "repository"} {
		a, b := upd.Search(q, 5), fresh.Search(q, 5)
		if !slices.EqualFunc(a, b, func(x, y Result) bool { return x.Tool.Name == y.Tool.Name && x.Score == y.Score }) {
			t.Errorf("Search(%q): Update gives %q, New %q", q, names(a), names(b))
		}
	}
	if got := names(upd.Search("defects", 5)); !slices.Contains(got, "github_list_issues") {
		t.Errorf("Update did not see the changed description: %q", got)
	}
	if got := names(old.Search("defects", 5)); len(got) != 0 {
		t.Errorf("Update changed the old index: %q", got)
	}
}

// A name that runs words together ("weatherforecast") is split into words the
// catalog uses elsewhere, so a request in words finds it by its name; Update
// splits an unchanged name again when another tool brings the words in.
func TestSearchSplitsJoinedNames(t *testing.T) {
	before := []tool.Tool{
		{Name: "weatherforecast", Description: "Tells what tomorrow brings."},
		{Name: "tides", Description: "Tide tables for the coast."},
	}
	after := append(slices.Clone(before), tool.Tool{Name: "alerts", Description: "Severe weather alerts and forecast updates."})
	old := New(before)
	if got := names(old.Search("forecast", 5)); len(got) != 0 {
		t.Errorf("Search(forecast) before any tool says the word = %q, want nothing", got)
	}
	for _, ix := range []*Index{New(after), old.Update(after)} {
		if got := names(ix.Search("forecast", 5)); len(got) == 0 || got[0] != "weatherforecast" {
			t.Errorf("Search(forecast) = %q, want weatherforecast first", got)
		}
	}
	if got := segment("gethealthworkforce", 3, func(w string) bool {
		return slices.Contains([]string{"get", "health", "work", "force", "workforce"}, w)
	}); !slices.Equal(got, []string{"get", "health", "workforce"}) {
		t.Errorf("segment = %q, want the fewest words", got)
	}
}

// A description's later paragraphs (usage notes, a docstring's "Args:") weigh
// less than its first, which says what the tool does.
func TestSearchWeighsFirstParagraph(t *testing.T) {
	ix := New([]tool.Tool{
		{Name: "geocode", Description: "Find a place's coordinates.\n\nArgs:\n    city: the city name\n    country: the city's country"},
		{Name: "facts", Description: "Facts about a city and its people."},
	})
	if got := names(ix.Search("city", 5)); len(got) != 2 || got[0] != "facts" {
		t.Errorf("Search(city) = %q, want facts first", got)
	}
	for s, want := range map[string]int{"a\n\nb": 1, "a\n \r\nb": 1, "a\nb": -1, "\n\na": -1, "a": -1, "a\nb\n\nc\n\nd": 3} {
		if got := paragraphEnd(s); got != want {
			t.Errorf("paragraphEnd(%q) = %d, want %d", s, got, want)
		}
	}
}

// params reads every schema as encoding/json does (paramsStdlib), edge cases
// of the JSON included: escapes, case-insensitive keys, repeated keys, bad
// UTF-8, trailing data.
func TestParams(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"b":{"type":"string","description":"the b"},"a":{"type":["string","null"]}},"required":["b"]}`,
		` { "properties" : { "x" : { "type" : "integer" , "minimum" : -1.5e+3, "enum": [1, true, null, "s", {"k": []}] } } } `,
		`{"properties":{"x":{"description":null}},"required":null}`,
		`{"properties":{"x":{"type":"string"},"x":{"description":"again"}}}`,
		`{"properties":null}`,
		`{}`,
		`{"properties":{"x":{"description":"line\nbreak \"quoted\" \u00e9"}}}`,
		`{"properties":{"x":{"Description":"capital"}}}`,
		`{"Properties":{"x":{}}}`,
		`{"properties":{"x":true}}`,
		`{"properties":{"x":{"description":5}}}`,
		`{"properties":{"x":{"type":5}}}`,
		`{"properties":{"x":{"type":["string",5]}}}`,
		`{"properties":{"x":{}}},"properties":{"y":{}}}`,
		`{"properties":{"x":{}},"properties":{"y":{}}}`,
		`{"properties":{"x":{}}} trailing`,
		`{"properties":{"x":{"default":01}}}`,
		`{"properties":{"x":{"description":"bad ` + "\xff" + `"}}}`,
		`[1]`,
		`null`,
		``,
	}
	for _, c := range schemas {
		got, want := params(json.RawMessage(c)), paramsStdlib(json.RawMessage(c))
		if !slices.Equal(got, want) {
			t.Errorf("params(%s) = %+v, encoding/json reads %+v", c, got, want)
		}
	}
	if got := params(json.RawMessage(schemas[0])); len(got) != 2 || got[0].Name != "b" || !got[0].Required || got[1].Type != "string|null" {
		t.Errorf("params(%s) = %+v", schemas[0], got)
	}
}

// paramsStdlib is params by encoding/json: what params must read.
func paramsStdlib(schema json.RawMessage) []param {
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := make([]param, 0, len(s.Properties))
	for name, p := range s.Properties {
		typ := ""
		switch v := p.Type.(type) {
		case string:
			typ = v
		case []any:
			var parts []string
			for _, x := range v {
				if str, ok := x.(string); ok {
					parts = append(parts, str)
				}
			}
			typ = strings.Join(parts, "|")
		}
		out = append(out, param{Name: name, Type: typ, Description: p.Description, Required: slices.Contains(s.Required, name)})
	}
	sortParams(out)
	return out
}

// The ASCII fast path of words splits as the Unicode path does.
func TestWordsASCII(t *testing.T) {
	for _, s := range []string{"getHTTPStatus", "list_pull-requests.v2", "s3Bucket ipv4", "ABC", "aB", "A1b", "x9Y9z",
		"HTTPServer2Go", "__init__", "a.b.c", "CamelCase_snake-kebab.dot", "ALLCAPS then lower", "9lives", "iOS", "", "  "} {
		var a, b []string
		splitWords(s, nil, func(w []byte) { a = append(a, string(w)) })
		splitWordsUnicode(s, nil, func(w []byte) { b = append(b, string(w)) })
		if !slices.Equal(a, b) {
			t.Errorf("splitWords(%q) = %q, the Unicode path %q", s, a, b)
		}
	}
}

// A catalog large enough to be analyzed by several goroutines ranks exactly as
// one goroutine ranks it, and Update over it as New does.
func TestBuildParallel(t *testing.T) {
	verbs := []string{"get", "list", "create", "delete", "update", "search"}
	nouns := []string{"issue", "repository", "file", "user", "message", "invoice", "forecast", "ticket", "order", "photo"}
	var tools []tool.Tool
	for i := range 2000 {
		v, n, m := verbs[i%len(verbs)], nouns[i/len(verbs)%len(nouns)], nouns[i%7]
		tools = append(tools, tool.Tool{
			Name:        fmt.Sprintf("%s_%s_%d", v, n, i),
			Server:      fmt.Sprintf("server%d", i%13),
			Description: fmt.Sprintf("%s a %s of the %s (variant %d).", v, n, m, i),
			InputSchema: schema(t, map[string]string{n + "_id": "string", "limit": "integer"}, n+"_id"),
		})
	}
	prev := runtime.GOMAXPROCS(1)
	one := New(tools)
	runtime.GOMAXPROCS(max(prev, 4))
	many := New(tools)
	runtime.GOMAXPROCS(prev)
	changed := slices.Clone(tools[10:])
	changed[0].Description = "Archive an invoice."
	upd, fresh := one.Update(changed), New(changed)
	same := func(a, b []Result) bool {
		return slices.EqualFunc(a, b, func(x, y Result) bool { return x.Tool.Name == y.Tool.Name && x.Score == y.Score })
	}
	for _, q := range []string{"create an issue", "archive invoice", "photo of the user", "forecast 17"} {
		if a, b := one.Search(q, 10), many.Search(q, 10); !same(a, b) || len(a) == 0 {
			t.Errorf("Search(%q): one goroutine %q, several %q", q, names(a), names(b))
		}
		if a, b := upd.Search(q, 10), fresh.Search(q, 10); !same(a, b) {
			t.Errorf("Search(%q): Update %q, New %q", q, names(a), names(b))
		}
	}
}

// Words next to each other in the request and in a tool's name or description
// ("city forecast") count beyond the words alone.
func TestSearchPhrases(t *testing.T) {
	ix := New([]tool.Tool{
		{Name: "alpha", Description: "Forecast the weather of a city."},
		{Name: "beta", Description: "Weather alerts and the city forecast."},
	})
	if got := names(ix.Search("city forecast", 5)); len(got) != 2 || got[0] != "beta" {
		t.Errorf("Search(city forecast) = %q, want beta first", got)
	}
	if got := names(ix.Search("forecast city", 5)); len(got) != 2 || got[0] != "alpha" {
		t.Errorf("Search(forecast city) = %q, want alpha first", got)
	}
}
