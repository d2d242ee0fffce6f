package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// TestSettle: a launched Host's Settle tells Slow, once, the servers it still waits
// for after NoticeAfter (with why), runs Settled once every server has settled, and
// leaves Servers the states a status display renders: a server that failed with its
// reason, one ready with the tools the catalog shows of it.
func TestSettle(t *testing.T) {
	fast := testserver.Stdio(t, "fast", "--tools", "only_fast")
	slow := testserver.Stdio(t, "slow", "--init-delay", "600ms")
	broken := testserver.Stdio(t, "broken", "--crash-at-start")
	broken.InitTimeout = 5 * time.Second
	h := host.New(&config.Config{Servers: []config.Server{fast, slow, broken}}, nil)
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Launch(); err != nil {
		t.Fatal(err)
	}
	var told [][]host.ServerState
	settled := 0
	err := h.Settle(ctx, &host.SettleOptions{
		NoticeAfter: 50 * time.Millisecond,
		Slow:        func(p []host.ServerState) { told = append(told, p) },
		Settled:     func(context.Context) { settled++ },
	})
	if err != nil {
		t.Fatalf("Settle: %v (no server is required)", err)
	}
	if settled != 1 {
		t.Errorf("Settled ran %d times, want once", settled)
	}
	if len(told) != 1 || !slices.ContainsFunc(told[0], func(s host.ServerState) bool { return s.Name == "slow" && s.Reason != "" }) {
		t.Errorf("Slow was told %+v, want once, naming slow with a reason", told)
	}
	byName := map[string]host.ServerState{}
	for _, s := range h.Servers() {
		byName[s.Name] = s
	}
	if s := byName["fast"]; s.State != apiwire.Ready || s.Exposed != s.Tools || s.Exposed == 0 || s.Reason != "" {
		t.Errorf("fast: %+v, want ready, its tools exposed, no reason", s)
	}
	if s := byName["broken"]; s.State == apiwire.Ready || s.Reason == "" {
		t.Errorf("broken: %+v, want not ready, with a reason", s)
	}
	if !slices.ContainsFunc(h.Tools(), func(tl tool.Tool) bool { return tl.Name == "only_fast" }) {
		t.Errorf("Tools has no only_fast: %v", h.Tools())
	}
}

// TestSettleRequiredFails: a required server that does not come up fails the
// Settle, and that is no fault of the config's; a naming collision under "never"
// is.
func TestSettleRequiredFails(t *testing.T) {
	broken := testserver.Stdio(t, "broken", "--crash-at-start")
	broken.Required, broken.InitTimeout = true, 5*time.Second
	h := host.New(&config.Config{Servers: []config.Server{broken}}, nil)
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Launch(); err != nil {
		t.Fatal(err)
	}
	err := h.Settle(ctx, nil)
	if err == nil || host.ConfigFault(err) {
		t.Fatalf("Settle = %v, want a failure that is not the config's fault", err)
	}
	if !host.ConfigFault(&tool.CollisionError{}) || !host.ConfigFault(&host.SettingsError{Err: errors.New("x")}) {
		t.Error("a collision and a settings error are the config's fault")
	}
}

// TestCatalogAndSearch: ToolCatalog is the catalog in a provider's form (what GET
// /v1/tools answers), NewSearcher ranks it and matches patterns, WaitTool finds a
// tool and UnknownTool names what is not there.
func TestCatalogAndSearch(t *testing.T) {
	h := host.New(&config.Config{Servers: []config.Server{testserver.Stdio(t, "ts", "--tools", "weather_forecast")}}, nil)
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Launch(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.WaitTool(ctx, "weather_forecast"); err != nil {
		t.Fatal(err)
	}
	_, err := h.WaitTool(ctx, "weather_forcast")
	if u := host.UnknownTool(err); u == nil || !strings.Contains(u.Error(), "weather_forecast") {
		t.Errorf("WaitTool of a typo: %v, want an unknown tool suggesting weather_forecast", err)
	}
	if host.UnknownTool(errors.New("other")) != nil {
		t.Error("UnknownTool found one in another error")
	}
	if err := h.Settle(ctx, nil); err != nil {
		t.Fatal(err)
	}
	v, err := h.ToolCatalog(format.Anthropic, false)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if !strings.Contains(string(b), `"name":"weather_forecast"`) || !strings.Contains(string(b), `"input_schema"`) {
		t.Errorf("Anthropic catalog: %s", b)
	}
	s := h.NewSearcher(nil)
	if s.Len() != len(h.Tools()) {
		t.Errorf("the searcher has %d tools, the catalog %d", s.Len(), len(h.Tools()))
	}
	found, err := s.Search(ctx, "weather forecast", 0)
	if err != nil || len(found) == 0 || found[0].Name != "weather_forecast" {
		t.Errorf("Search: %v, %v", found, err)
	}
	found, err = s.SearchRegex("^weather_", 0)
	if err != nil || len(found) != 1 {
		t.Errorf("SearchRegex: %v, %v", found, err)
	}
	if err := h.CheckArguments(json.RawMessage(strings.Repeat("[", 100) + strings.Repeat("]", 100))); err == nil {
		t.Error("CheckArguments took arguments 100 levels deep")
	}
}

// TestWireStatus: a server's status as host hands it to a program (ServerState,
// WireStatus) is every field of the supervisor's, written as the API writes it: the
// same JSON, so that a field added to one and not carried over shows here.
func TestWireStatus(t *testing.T) {
	st := upstream.Status{
		Name: "notes", State: upstream.NeedsSignIn, Transport: config.HTTP,
		Tools: 3, Resources: 4, Templates: 5, Prompts: 6,
		Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Restarts: 7, LastError: "401",
		Stderr: []string{"a line"}, Protocol: "2025-06-18", ServerName: "notes-server", ServerVersion: "1.2.3",
		PerUser: true, People: 8,
	}
	want, _ := json.Marshal(st)
	got, _ := json.Marshal(host.WireStatus(st))
	if string(got) != string(want) {
		t.Errorf("WireStatus writes\n%s\nwant, as the supervisor's status\n%s", got, want)
	}
	var back map[string]any
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if n := reflect.TypeOf(st).NumField(); len(back) != n {
		t.Errorf("WireStatus writes %d fields, want all %d of the status (each set here)", len(back), n)
	}
}
