//go:build unix

package upstream_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/relay"
	"github.com/switchboard-mcp/switchboard/tool"
)

// callerKey marks a call's context with who made it.
type callerKey struct{}

// namePeer answers a server's elicitation with the name of the caller its context
// says, once want requests are under way at the same time (so that each is asked
// while the other's call is still under way too), and records how many calls each
// request's context carried.
type namePeer struct {
	want    int
	mu      sync.Mutex
	arrived int
	all     chan struct{}
	seen    []int // len(relay.CallsUnderWay) of each request
}

func (p *namePeer) Request(ctx context.Context, _, method string, _ mcp.Params) (mcp.Result, error) {
	if method != relay.MethodElicit {
		return nil, fmt.Errorf("unexpected %s", method)
	}
	p.mu.Lock()
	p.arrived++
	p.seen = append(p.seen, len(relay.CallsUnderWay(ctx)))
	if p.arrived == p.want {
		close(p.all)
	}
	p.mu.Unlock()
	select {
	case <-p.all:
	case <-time.After(10 * time.Second): // answered anyway: the assertions say what went wrong
	}
	name, _ := ctx.Value(callerKey{}).(string)
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name}}, nil
}

func (p *namePeer) Notify(context.Context, string, string, mcp.Params) {}

// A server of the 2026-07-28 protocol asks its questions as the input requests of a
// result. Each goes to the Peer with the context of the call it belongs to, and of
// that call alone: two calls under way at once each get the answer their own caller
// gives (SEP-2322: input requests "MUST NOT be used for any other request the client
// may be sending"). Before, the Peer got every call under way and the values of the
// newest, as for a request a server sends on its own, which names no call.
func TestInputRequestsGoWithTheirCall(t *testing.T) {
	t.Parallel()
	peer := &namePeer{want: 2, all: make(chan struct{})}
	opts := testserver.Fast()
	opts.Peer = peer
	opts.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	s := start(t, config.Server{Name: "conf", Transport: config.Stdio, Command: testenv.EverythingServer(t)}, opts)
	if v := s.Status().Protocol; v != "2026-07-28" {
		t.Fatalf("negotiated %q, want 2026-07-28", v)
	}
	names := []string{"ada", "bob"}
	got := make([]string, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.WithValue(t.Context(), callerKey{}, name), 15*time.Second)
			defer cancel()
			res, err := s.Call(ctx, "test_input_required_result_elicitation", nil)
			if err != nil {
				got[i] = err.Error()
				return
			}
			got[i] = tool.Text(res)
		})
	}
	wg.Wait()
	for i, name := range names {
		if want := "Hello, " + name + "!"; got[i] != want {
			t.Errorf("%s's call = %q, want %q", name, got[i], want)
		}
	}
	peer.mu.Lock()
	defer peer.mu.Unlock()
	for i, n := range peer.seen {
		if n != 1 {
			t.Errorf("input request %d came with %d calls under way, want its own alone", i+1, n)
		}
	}
}
