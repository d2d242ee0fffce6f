package api

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// fullTable is the route table with every optional route in: an editor of the
// servers and a gateway.
func fullTable() []route {
	s := &Server{opts: Options{Servers: struct{ ServerEditor }{}, Gateway: http.NotFoundHandler()}}
	return s.routes()
}

// endpoint is a method (empty: any) and a path, as a route's pattern or a line of
// the docs names it.
type endpoint struct{ method, path string }

func (e endpoint) String() string { return strings.TrimSpace(e.method + " " + e.path) }

func parseEndpoint(s string) endpoint {
	if m, p, ok := strings.Cut(s, " "); ok {
		return endpoint{m, p}
	}
	return endpoint{"", s}
}

// covers: the docs' line e names the route r (a line without a method covers every
// method of its path; GET /{$} is written GET /).
func (e endpoint) covers(r endpoint) bool {
	return e.path == strings.TrimSuffix(r.path, "{$}") && (e.method == "" || r.method == "" || e.method == r.method)
}

// docEndpoints reads the first column of docs/api.md's table of endpoints: each
// `METHOD /path`, with "[/x]" for an optional part (both forms are routes), "…" for
// the rest of a prefix and "?q=" for a query left out.
func docEndpoints(t *testing.T) []endpoint {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## Endpoints\n")
	if !ok {
		t.Fatal("docs/api.md has no section ## Endpoints")
	}
	var out []endpoint
	row := regexp.MustCompile("^\\| `([^`]+)` \\|")
	for line := range strings.Lines(rest) {
		if strings.HasPrefix(line, "#") {
			break
		}
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		out = append(out, expand(m[1])...)
	}
	if len(out) < 20 {
		t.Fatalf("docs/api.md's table of endpoints has %d rows: not the table this test reads?", len(out))
	}
	return out
}

var optional = regexp.MustCompile(`\[([^\]]*)\]`)

// expand writes a documented endpoint as the paths it stands for.
func expand(s string) []endpoint {
	s, _, _ = strings.Cut(s, "?")
	s = strings.TrimSuffix(s, "…")
	if m := optional.FindStringSubmatchIndex(s); m != nil {
		return append(expand(s[:m[0]]+s[m[1]:]), expand(s[:m[0]]+s[m[2]:m[3]]+s[m[1]:])...)
	}
	return []endpoint{parseEndpoint(s)}
}

// TestRoutesDocumented: docs/api.md's table of endpoints and routes.go's table of
// routes name the same endpoints, both ways: nothing documented that is not routed,
// nothing routed that is not documented.
func TestRoutesDocumented(t *testing.T) {
	docs := docEndpoints(t)
	var routes []endpoint
	for _, r := range fullTable() {
		routes = append(routes, parseEndpoint(r.pattern))
	}
	for _, r := range routes {
		if !slices.ContainsFunc(docs, func(d endpoint) bool { return d.covers(r) }) {
			t.Errorf("route %q (routes.go) is not in docs/api.md's table of endpoints", r)
		}
	}
	for _, d := range docs {
		if !slices.ContainsFunc(routes, d.covers) {
			t.Errorf("docs/api.md's table of endpoints has %q, which routes.go does not route", d)
		}
	}
}

// routedMux is a ServeMux with every pattern of the table, to ask which route a
// concrete request would take.
func routedMux() *http.ServeMux {
	mux := http.NewServeMux()
	for _, r := range fullTable() {
		mux.Handle(r.pattern, http.NotFoundHandler())
	}
	return mux
}

// routed reports whether a request with method (any, when empty) on path would find
// a route.
func routed(mux *http.ServeMux, method, path string) bool {
	methods := []string{method}
	if method == "" {
		methods = []string{"GET", "POST", "PATCH", "DELETE"}
	}
	for _, m := range methods {
		if _, pattern := mux.Handler(httptest.NewRequest(m, path, nil)); pattern != "" {
			return true
		}
	}
	return false
}

// TestRoutesMentioned: every endpoint that the docs, the README and the dashboard
// name elsewhere than in the table (`GET /v1/sessions/{id}` in a sentence, a curl
// line's URL, the dashboard's fetches) is routed, so that renaming a route without
// its mentions fails here.
func TestRoutesMentioned(t *testing.T) {
	mux := routedMux()
	sentence := regexp.MustCompile("`(GET|POST|PATCH|DELETE|PUT) (/[^`\\s]*)")
	curl := regexp.MustCompile(`localhost:7300(/[^\s'"` + "`" + `)\]]*)`)
	script := regexp.MustCompile("[\"'`](/(?:v1|mcp|sse|health|healthz|readyz|metrics|oauth|\\.well-known)[^\"'`\\s]*)")
	files := map[string][]*regexp.Regexp{
		"../docs/api.md": {sentence, curl},
		"../README.md":   {sentence, curl},
	}
	scripts, _ := filepath.Glob("dashboard/*.js")
	if len(scripts) == 0 {
		t.Fatal("no dashboard/*.js")
	}
	for _, f := range scripts {
		files[f] = []*regexp.Regexp{script}
	}
	checked := 0
	for file, res := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range res {
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				method, path := "", m[len(m)-1]
				if len(m) == 3 {
					method = m[1]
				}
				path = regexp.MustCompile(`\$\{[^}]*\}`).ReplaceAllString(path, "x") // a script's template
				if strings.Contains(strings.TrimSuffix(path, "…"), "…") {
					continue // "…/config": a path elided in a sentence
				}
				for _, e := range expand(method + " " + path) {
					p := e.path
					if strings.HasSuffix(p, "/") && p != "/" && !strings.HasPrefix(p, "/dashboard/") {
						p += "x" // a prefix the script completes
					}
					checked++
					if !routed(mux, e.method, p) {
						t.Errorf("%s names %q, which no route takes", file, m[0])
					}
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d mentions of endpoints: fewer than there are", checked)
	}
}
