package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/tool"
)

// TestAccessLists: a client whose requests carry an access (the API puts the
// caller's there) lists and finds only the tools it reaches, deferred or not, and a
// call of another tool never runs.
func TestAccessLists(t *testing.T) {
	cat, err := bigCatalog()
	if err != nil {
		t.Fatal(err)
	}
	pol := access.NewPolicy([]access.Profile{{Name: "weather", Tools: tool.ToolFilter{Allow: []string{"weather_*", "filler_0?"}}, Users: []string{"wendy"}}})
	for _, c := range []struct {
		name     string
		deferred *deferred.Policy
		listed   []string
	}{
		{"whole catalog", nil, append([]string{"weather_forecast"}, fillers(10)...)},
		{"deferred", deferredPolicy(), []string{deferred.SearchToolName, deferred.RegexToolName, deferred.CallToolName}}, // clock_now is pinned, but not hers
	} {
		t.Run(c.name, func(t *testing.T) {
			g := gateway.New(cat, &gateway.Options{Deferred: c.deferred})
			t.Cleanup(func() { g.Close() })
			h := g.Handler(nil)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ctx := identity.NewContext(r.Context(), identity.Person{Subject: "wendy"})
				acc, err := pol.For(ctx, "")
				if err != nil {
					t.Error(err)
				}
				h.ServeHTTP(w, r.WithContext(access.NewContext(ctx, acc)))
			}))
			t.Cleanup(srv.Close)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tl := range res.Tools {
				got = append(got, tl.Name)
			}
			if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(c.listed))) {
				t.Errorf("lists %v, want %v", got, c.listed)
			}
			call := func(name string, args map[string]any) string {
				t.Helper()
				r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				if err != nil {
					return err.Error()
				}
				return tool.Text(r)
			}
			if got := call("mail_send", map[string]any{}); strings.Contains(got, "ran mail_send") {
				t.Errorf("mail_send ran: %s", got)
			}
			if got := call("weather_forecast", map[string]any{"city": "Oslo"}); !strings.HasPrefix(got, "ran weather_forecast") {
				t.Errorf("weather_forecast: %s", got)
			}
			if c.deferred == nil {
				return
			}
			if got := call(deferred.RegexToolName, map[string]any{"pattern": "mail|clock|weather"}); strings.Contains(got, "mail_send") || strings.Contains(got, "clock_now") || !strings.Contains(got, "weather_forecast") {
				t.Errorf("regex search: %s", got)
			}
			if got := call(deferred.CallToolName, map[string]any{"name": "clock_now"}); !strings.Contains(got, `unknown tool "clock_now"`) {
				t.Errorf("tool_call clock_now: %s", got)
			}
		})
	}
}

func fillers(n int) []string {
	var out []string
	for i := range n {
		out = append(out, "filler_0"+string(rune('0'+i)))
	}
	return out
}
