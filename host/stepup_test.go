package host_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/tool"
)

// TestStepUp: the catalog of StepUp asks again, with the tool's server, about a
// call that came back as an error, and about no other; the call is made once more
// only when again says so, and the caller sees one result.
func TestStepUp(t *testing.T) {
	h := host.New(&config.Config{Servers: []config.Server{testserver.Stdio(t, "s")}}, nil)
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Launch(); err != nil {
		t.Fatal(err)
	}
	if err := h.Settle(ctx, nil); err != nil {
		t.Fatal(err)
	}
	name := func(original string) string {
		i := slices.IndexFunc(h.Tools(), func(tl tool.Tool) bool { return tl.OriginalName == original })
		if i < 0 {
			t.Fatalf("no tool %s in %v", original, h.Tools())
		}
		return h.Tools()[i].Name
	}
	for _, signedIn := range []bool{false, true} {
		var asked []string
		ts := h.StepUp(func(_ context.Context, server string) bool {
			asked = append(asked, server)
			return signedIn
		})
		res, err := ts.Call(ctx, name("echo"), json.RawMessage(`{"text": "hi"}`))
		if err != nil || res.IsError || len(asked) != 0 {
			t.Fatalf("echo: %v, %v; asked %v, want a result and nobody asked", res, err, asked)
		}
		res, err = ts.Call(ctx, name("fail"), json.RawMessage(`{}`))
		if err != nil || !res.IsError || host.ToolText(res) != "failure requested" {
			t.Errorf("fail: %v, %v; want its error result", res, err)
		}
		if !slices.Equal(asked, []string{"s"}) {
			t.Errorf("signed in %v: asked %v, want [s] once", signedIn, asked)
		}
		if lk, ok := ts.(interface {
			Lookup(string) (tool.Tool, bool)
		}); !ok {
			t.Error("StepUp's catalog has no Lookup, which an agent uses")
		} else if tl, ok := lk.Lookup(name("fail")); !ok || tl.Server != "s" {
			t.Errorf("Lookup(fail) = %+v, %v", tl, ok)
		}
	}
}

// TestNeedsStepUp: neither a server that is not the config's nor a stdio one (no
// sign-in to make) asks for a new sign-in; the 403 insufficient_scope case is
// cmd/switchboard's TestChatStepUp and TestCallSignsIn, against a real
// authorization server.
func TestNeedsStepUp(t *testing.T) {
	h := host.New(&config.Config{Servers: []config.Server{testserver.Stdio(t, "s")}}, nil)
	t.Cleanup(func() { h.Close() })
	for _, name := range []string{"s", "nope"} {
		if h.NeedsStepUp(name) {
			t.Errorf("NeedsStepUp(%s) = true", name)
		}
	}
}
