package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/search"
	"github.com/switchboard-mcp/switchboard/tool"
)

// bigCatalog is n tools across twenty services, each answering with its name and
// arguments, and the one a weather question needs among them.
func bigCatalog(tb testing.TB, n int) *tool.Local {
	tb.Helper()
	services := []string{"github", "slack", "jira", "gmail", "calendar", "drive", "notion", "linear", "stripe", "shopify",
		"zendesk", "hubspot", "salesforce", "dropbox", "trello", "asana", "figma", "sentry", "datadog", "twilio"}
	verbs := []string{"create", "delete", "list", "get", "update", "archive", "export", "import", "share", "move"}
	nouns := []string{"issue", "message", "ticket", "email", "event", "file", "page", "project", "invoice", "order",
		"customer", "contact", "deal", "folder", "card", "task", "comment", "alert", "metric", "call"}
	l := tool.NewLocal()
	for i := 0; i < n-1; i++ {
		s, v, o := services[i%len(services)], verbs[(i/len(services))%len(verbs)], nouns[(i/len(services)/len(verbs))%len(nouns)]
		name := fmt.Sprintf("%s_%s_%s", s, v, o)
		if i >= len(services)*len(verbs)*len(nouns) {
			name = fmt.Sprintf("%s_%d", name, i)
		}
		desc := fmt.Sprintf("%s a %s in %s.", strings.ToUpper(v[:1])+v[1:], o, s)
		addEcho(tb, l, name, desc, `{"type":"object","properties":{"id":{"type":"string","description":"The `+o+`'s id."}}}`)
	}
	addEcho(tb, l, "weather_get_forecast", "Get the weather forecast for a city, by day.",
		`{"type":"object","properties":{"city":{"type":"string","description":"The city's name."},"days":{"type":"integer"}},"required":["city"]}`)
	return l
}

func addEcho(tb testing.TB, l *tool.Local, name, desc, schema string) {
	tb.Helper()
	if err := l.AddRaw(name, desc, json.RawMessage(schema), func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
		return tool.TextResult(name + " ran with " + string(args)), nil
	}); err != nil {
		tb.Fatal(err)
	}
}

// firstFound reads the first tool a tool_search result names, as a model would.
var firstFound = regexp.MustCompile(`(?m)^([A-Za-z0-9_.-]+) \(server `)

// searcher is a fake model that does what a model does in deferred mode: it asks
// tool_search for the user's request, calls the first tool found with the city,
// provided the request lists that tool, and answers with the tool's result.
func searcher(r fakellm.Request) fakellm.Reply {
	last := r.Messages[len(r.Messages)-1]
	switch {
	case last.Role == "user":
		q, _ := json.Marshal(map[string]string{"query": last.Text})
		return fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: deferred.SearchToolName, Arguments: string(q)}}}
	case last.Role == "tool" && last.CallID == "c1":
		m := firstFound.FindStringSubmatch(last.Text)
		if m == nil {
			return fakellm.Reply{Text: "no tool found: " + last.Text}
		}
		if !slices.Contains(toolNames(r), m[1]) {
			return fakellm.Reply{Text: "the search found " + m[1] + " but the request does not list it"}
		}
		return fakellm.Reply{Calls: []fakellm.Call{{ID: "c2", Name: m[1], Arguments: `{"city": "Paris"}`}}}
	default:
		return fakellm.Reply{Text: "Answer: " + last.Text}
	}
}

// TestDeferredThousandTools: an agent with 1,000 tools sees two search tools, finds
// the weather tool and calls it, all in one turn; the tool found is listed from the
// next step and stays loaded with the session.
func TestDeferredThousandTools(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		model, srv := b.start(t, searcher)
		store := newStore(t)
		catalog := bigCatalog(t, 1000)
		a := agent.New(model, store, &agent.Options{Tools: catalog, Deferred: &deferred.Policy{}})
		id := newSession(t, store)
		turn, err := a.Run(testCtx(t), id, "What is the weather forecast for Paris?")
		if err != nil {
			t.Fatal(err)
		}
		want := `Answer: weather_get_forecast ran with {"city":"Paris"}`
		if turn.Answer != want || len(turn.Steps) != 3 {
			t.Fatalf("answer %q in %d steps, want %q in 3", turn.Answer, len(turn.Steps), want)
		}
		reqs := srv.Requests()
		if got := toolNames(reqs[0]); !slices.Equal(got, []string{deferred.SearchToolName, deferred.RegexToolName}) {
			t.Errorf("first request listed %d tools (%v), want the two search tools", len(got), got[:min(len(got), 5)])
		}
		if got := toolNames(reqs[1]); len(got) < 3 || len(got) > 2+search.DefaultSearchLimit || !slices.Contains(got, "weather_get_forecast") {
			t.Errorf("second request listed %v, want the search tools and what the search found", got)
		}
		sess, err := store.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(sess.Loaded, "weather_get_forecast") {
			t.Errorf("session's loaded tools %v do not keep the tool found", sess.Loaded)
		}
	})
}

// TestDeferredLoadedPersist: a session's loaded tools are listed from the first step
// of its next turn, even by another agent over the same store; another session's
// are its own; a tool called by its exact name without a search runs and is loaded.
func TestDeferredLoadedPersist(t *testing.T) {
	t.Parallel()
	model, srv := startOpenAI(t, fakellm.Rules())
	store := newStore(t)
	catalog := bigCatalog(t, 100)
	opts := &agent.Options{Tools: catalog, Deferred: &deferred.Policy{
		Pinned: func(t tool.Tool) bool { return t.Name == "github_create_issue" },
	}}
	one, other := newSessionID(t, store, "one"), newSessionID(t, store, "other")
	turn, err := agent.New(model, store, opts).Run(testCtx(t), one, `call weather_get_forecast {"city": "Oslo"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(turn.Answer, `weather_get_forecast ran with {"city":"Oslo"}`) {
		t.Fatalf("calling an unlisted tool by name: %q", turn.Answer)
	}
	if _, err := agent.New(model, store, opts).Run(testCtx(t), one, "hello again"); err != nil {
		t.Fatal(err)
	}
	if _, err := agent.New(model, store, opts).Run(testCtx(t), other, "hello"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	first, again, others := toolNames(reqs[0]), toolNames(reqs[2]), toolNames(reqs[3])
	base := []string{deferred.SearchToolName, deferred.RegexToolName, "github_create_issue"}
	if !slices.Equal(first, base) {
		t.Errorf("first request listed %v, want %v", first, base)
	}
	if want := append(slices.Clone(base), "weather_get_forecast"); !slices.Equal(again, want) {
		t.Errorf("the session's next turn listed %v, want %v", again, want)
	}
	if !slices.Equal(others, base) {
		t.Errorf("another session listed %v, want %v: loaded tools leaked", others, base)
	}
}

// TestDeferredBelowThreshold: a small catalog is shown whole in auto mode, and
// "never" shows a large one whole.
func TestDeferredBelowThreshold(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		n      int
		policy deferred.Policy
	}{
		{"auto, 10 tools", 10, deferred.Policy{}},
		{"never, 40 tools", 40, deferred.Policy{Mode: deferred.Never}},
	} {
		t.Run(c.name, func(t *testing.T) {
			model, srv := startOpenAI(t, fakellm.Rules())
			store := newStore(t)
			a := agent.New(model, store, &agent.Options{Tools: bigCatalog(t, c.n), Deferred: &c.policy})
			if _, err := a.Run(testCtx(t), newSession(t, store), "hi"); err != nil {
				t.Fatal(err)
			}
			if got := toolNames(srv.Requests()[0]); len(got) != c.n || slices.Contains(got, deferred.SearchToolName) {
				t.Errorf("listed %d tools (search tools: %v), want the %d of the catalog", len(got), slices.Contains(got, deferred.SearchToolName), c.n)
			}
		})
	}
}

// TestDeferredUnknownTool: a call to a tool that exists nowhere tells the model to
// search, instead of listing the few tools it was shown.
func TestDeferredUnknownTool(t *testing.T) {
	t.Parallel()
	model, _ := startOpenAI(t, fakellm.Rules())
	store := newStore(t)
	a := agent.New(model, store, &agent.Options{Tools: bigCatalog(t, 30), Deferred: &deferred.Policy{}})
	turn, err := a.Run(testCtx(t), newSession(t, store), `call send_fax {"to": "1"}`)
	if err != nil {
		t.Fatal(err)
	}
	res := tool.Text(turn.Steps[0].Results[0].Result)
	if !strings.Contains(res, `unknown tool "send_fax"`) || !strings.Contains(res, deferred.SearchToolName) {
		t.Errorf("unknown tool result %q, want it to point at %s", res, deferred.SearchToolName)
	}
}

// nativeSearcher is a model with the provider's own tool search: it searches for
// the user's request server side, calls the first tool found, then answers.
func nativeSearcher(r fakellm.Request) fakellm.Reply {
	last := r.Messages[len(r.Messages)-1]
	if last.Role == "user" {
		found := r.SearchDeferred(last.Text)
		if len(found) == 0 {
			return fakellm.Reply{Text: "nothing found"}
		}
		return fakellm.Reply{Search: last.Text, Calls: []fakellm.Call{{ID: "toolu_1", Name: found[0], Arguments: `{"city": "Paris"}`}}}
	}
	return fakellm.Reply{Text: "Answer: " + last.Text}
}

// TestDeferredNative: with NativeSearch, Anthropic and OpenAI's Responses API get
// the catalog deferred (defer_loading) with their own search tool and no search
// tools of ours, search it server side and call the tool found, which the agent
// runs; the search blocks (items) go back to the API on the next request, which the
// fakes refuse without them. OpenAI's Chat Completions has no tool search: the agent
// falls back to its own search tools.
func TestDeferredNative(t *testing.T) {
	t.Parallel()
	pinned := func(t tool.Tool) bool { return t.Name == "github_create_issue" }
	native := map[string]func(testing.TB, fakellm.Script) (llm.Model, *fakellm.Server){
		"anthropic": startAnthropic, "openai-responses": startOpenAIResponses,
	}
	for _, name := range []string{"anthropic", "openai-responses"} {
		t.Run(name, func(t *testing.T) {
			model, srv := native[name](t, nativeSearcher)
			store := newStore(t)
			a := agent.New(model, store, &agent.Options{Tools: bigCatalog(t, 200),
				Deferred: &deferred.Policy{Pinned: pinned}, NativeSearch: true})
			id := newSession(t, store)
			turn, err := a.Run(testCtx(t), id, "weather forecast")
			if err != nil {
				t.Fatal(err)
			}
			if want := `Answer: weather_get_forecast ran with {"city":"Paris"}`; turn.Answer != want {
				t.Fatalf("answer %q, want %q", turn.Answer, want)
			}
			first := srv.Requests()[0]
			if got := toolNames(first); !slices.Equal(got, []string{"github_create_issue"}) || first.ToolSearch == "" || len(first.Deferred) != 199 {
				t.Errorf("first request: tools %v, search tool %q, %d deferred; want the pinned tool, the provider's search, 199 deferred",
					got, first.ToolSearch, len(first.Deferred))
			}
			// Once more: the history with the search blocks is accepted by the API.
			if _, err := a.Run(testCtx(t), id, "weather forecast"); err != nil {
				t.Fatalf("next turn over a history with the provider's search blocks: %v", err)
			}
		})
	}
	t.Run("openai falls back", func(t *testing.T) {
		model, srv := startOpenAI(t, searcher)
		store := newStore(t)
		a := agent.New(model, store, &agent.Options{Tools: bigCatalog(t, 200), Deferred: &deferred.Policy{}, NativeSearch: true})
		turn, err := a.Run(testCtx(t), newSession(t, store), "What is the weather forecast for Paris?")
		if err != nil || !strings.Contains(turn.Answer, "weather_get_forecast ran") {
			t.Fatalf("turn: %v, %q", err, turn.Answer)
		}
		if got := toolNames(srv.Requests()[0]); !slices.Equal(got, []string{deferred.SearchToolName, deferred.RegexToolName}) {
			t.Errorf("first request listed %v, want Switchboard's search tools", got)
		}
	})
}
