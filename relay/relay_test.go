package relay_test

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions servers use today; a Peer answers them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/relay"
	"github.com/switchboard-mcp/switchboard/tool"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// callerKey is the value a caller puts in its call's context, as a gateway puts
// which client called: the Peer finds it in the context of the messages the call
// causes.
type callerKey struct{}

// sampler is a Peer that answers sampling itself, as an agent does with its model.
type sampler struct{}

func (sampler) Request(ctx context.Context, server, method string, params mcp.Params) (mcp.Result, error) {
	if method != relay.MethodCreateMessage {
		return nil, relay.NotMine(fmt.Errorf("%s from %s: only sampling is answered here", method, server))
	}
	p := params.(*mcp.CreateMessageWithToolsParams)
	prompt := p.Messages[0].Content[0].(*mcp.TextContent).Text
	who, _ := ctx.Value(callerKey{}).(string)
	text := fmt.Sprintf("%s's model on %q (%d call under way)", who, prompt, len(relay.CallsUnderWay(ctx)))
	return &mcp.CreateMessageWithToolsResult{Model: "test", Role: "assistant", Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

func (sampler) Notify(context.Context, string, string, mcp.Params) {}

// A Peer added to a hub answers the sampling request a server sends during a tool
// call, and knows the call by the values of its context. The server sends it as a
// request of its own, which only the protocol of 2025-11-25 and before allows: the
// connection is pinned to it (input requests, 2026-07-28's way, name their call:
// upstream's TestInputRequestsGoWithTheirCall).
func TestAPeerAnswersSamplingThroughAHub(t *testing.T) {
	srv := config.Server{Name: "conf", Transport: config.Stdio, Command: testenv.EverythingServer(t), InitTimeout: 30 * time.Second, ToolTimeout: 30 * time.Second}
	uo := testserver.Fast()
	uo.ProtocolVersion = "2025-11-25"
	h := hub.New(&config.Config{Servers: []config.Server{srv}}, &hub.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Upstream: uo})
	t.Cleanup(func() { h.Close() })
	h.SetCapabilities(&mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}) // "Clients that support sampling MUST declare" it
	var src relay.Source = h
	link := src.AddPeer(sampler{})
	t.Cleanup(link.Remove)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := h.Call(context.WithValue(ctx, callerKey{}, "agent-7"), "test_sampling", json.RawMessage(`{"prompt":"capital of France?"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `LLM response: agent-7's model on "capital of France?" (1 call under way)`
	if got := tool.Text(res); res.IsError || got != want {
		t.Fatalf("test_sampling: %q (error %v), want %q", got, res.IsError, want)
	}
}

func TestMostVerbose(t *testing.T) {
	for _, c := range []struct {
		in   []mcp.LoggingLevel
		want mcp.LoggingLevel
	}{
		{nil, ""},
		{[]mcp.LoggingLevel{""}, ""},
		{[]mcp.LoggingLevel{"warning", "", "info", "error"}, "info"},
		{[]mcp.LoggingLevel{"emergency", "debug"}, "debug"},
		{[]mcp.LoggingLevel{"verbose", "notice"}, "notice"}, // not a level: ignored
	} {
		if got := relay.MostVerbose(c.in...); got != c.want {
			t.Errorf("MostVerbose(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNotMine(t *testing.T) {
	reason := errors.New("no client of mine can answer it")
	err := relay.NotMine(reason)
	if !errors.Is(err, relay.ErrNotMine) || !errors.Is(err, reason) || err.Error() != reason.Error() {
		t.Errorf("NotMine(%q) = %q: Is ErrNotMine %v, Is reason %v", reason, err, errors.Is(err, relay.ErrNotMine), errors.Is(err, reason))
	}
	if errors.Is(reason, relay.ErrNotMine) {
		t.Error("a plain error is ErrNotMine")
	}
}

func TestCanAnswer(t *testing.T) {
	all := []string{relay.MethodCreateMessage, relay.MethodElicit, relay.MethodListRoots}
	for _, c := range []struct {
		caps *mcp.ClientCapabilities
		can  []string
	}{
		{nil, nil},
		{&mcp.ClientCapabilities{}, nil},
		{&mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}, []string{relay.MethodCreateMessage}},
		{&mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}, []string{relay.MethodElicit}},
		{&mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}}, []string{relay.MethodListRoots}},
		{rootsV1(), []string{relay.MethodListRoots}},
	} {
		for _, m := range append(all, "ping") {
			want := false
			for _, ok := range c.can {
				want = want || ok == m
			}
			if got := relay.CanAnswer(c.caps, m); got != want {
				t.Errorf("CanAnswer(%+v, %s) = %v, want %v", c.caps, m, got, want)
			}
		}
	}
}

// rootsV1 declares roots in the SDK's older field only.
func rootsV1() *mcp.ClientCapabilities {
	c := &mcp.ClientCapabilities{}
	c.Roots.ListChanged = true
	return c
}

// A Peer's context has the message's cancellation and the newest call's values, and
// lists every call under way.
func TestMessageContext(t *testing.T) {
	type key struct{}
	older := context.WithValue(context.Background(), key{}, "older")
	newer := context.WithValue(context.Background(), key{}, "newer")
	life, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "the connection's"))
	ctx := relay.MessageContext(life, []context.Context{older, newer})
	if got := ctx.Value(key{}); got != "newer" {
		t.Errorf("value %v, want the newest call's", got)
	}
	if calls := relay.CallsUnderWay(ctx); len(calls) != 2 || calls[0] != older || calls[1] != newer {
		t.Errorf("CallsUnderWay: %v", calls)
	}
	cancel()
	if ctx.Err() == nil {
		t.Error("not cancelled with life")
	}
	none := relay.MessageContext(life, nil)
	if none.Value(key{}) != nil || relay.CallsUnderWay(none) != nil {
		t.Error("with no call under way the context carries values")
	}
}
