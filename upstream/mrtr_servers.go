package upstream

//lint:file-ignore SA1019 roots and sampling are deprecated in the 2026-07-28 protocol but live in the versions servers and clients use today; input requests carry them.

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/errgroup"

	"github.com/switchboard-mcp/switchboard/relay"
)

// maxRounds bounds the multi-round-trip retries of one request, as the SDK's own
// loop does.
const maxRounds = 10

// roundTrips is the sending middleware of connection c. It answers the input
// requests a server returns instead of a result (SEP-2322: the only way to ask its
// client things in the 2026-07-28 protocol, and one an SDK server also takes with
// older clients when a request needs more than one round) and sends the request
// again with the answers and the server's request state. The answers come from the
// Peer, like those of the server's own requests. The SDK's loop is off: it would
// answer from this client's handlers, which a gateway's upstream connection does
// not have.
//
// Each response also waits for the notifications the server sent before it to be
// handled (see order.go).
func (s *Supervisor) roundTrips(c *conn) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return s.roundTrip(ctx, c, next, method, req)
		}
	}
}

func (s *Supervisor) roundTrip(ctx context.Context, c *conn, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	for round := 1; ; round++ {
		res, err := next(ctx, method, req)
		c.waitNotes(ctx)
		if err != nil {
			return res, err
		}
		requests, state := inputRequests(res)
		_, passOn := relay.InputRoundOf(ctx)
		switch {
		case requests == nil:
			return complete(res), nil
		case passOn && len(requests) > 0:
			// The caller takes them itself (a gateway's client of 2026-07-28): under
			// the server's keys and with its state, which the caller's next round
			// brings back (see Call, and the gateway's prompts and reads).
			return inputRequired(res), nil
		case len(requests) == 0: // load shedding
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server is busy; try again later"}
		case round == maxRounds:
			return nil, fmt.Errorf("%s: the server still asked for input after %d rounds", method, maxRounds)
		}
		answers, err := s.answer(ctx, requests)
		if err != nil {
			return nil, err
		}
		if req, err = withAnswers(req, answers, state); err != nil {
			return nil, err
		}
	}
}

// complete is a complete result without what the 2026-07-28 wire adds to every
// result: its resultType ("complete", which says nothing once the rounds are over)
// and the server's serverInfo in _meta (the connection's, which a gateway must not
// pass off as its own). What a server of any version returns then reads the same.
func complete(res mcp.Result) mcp.Result {
	meta := withoutServerInfo
	// A new value of each: the SDK keeps resultType in an unexported field.
	switch r := res.(type) {
	case *mcp.CallToolResult:
		return &mcp.CallToolResult{Meta: meta(r.Meta), Content: r.Content, StructuredContent: r.StructuredContent, IsError: r.IsError}
	case *mcp.GetPromptResult:
		return &mcp.GetPromptResult{Meta: meta(r.Meta), Description: r.Description, Messages: r.Messages}
	case *mcp.ReadResourceResult:
		return &mcp.ReadResourceResult{Meta: meta(r.Meta), Cacheable: r.Cacheable, Contents: r.Contents}
	}
	return res
}

// withoutServerInfo is m without the server's serverInfo.
func withoutServerInfo(m mcp.Meta) mcp.Meta {
	if _, ok := m[mcp.MetaKeyServerInfo]; !ok {
		return m
	}
	m = maps.Clone(m)
	delete(m, mcp.MetaKeyServerInfo)
	if len(m) == 0 {
		return nil
	}
	return m
}

// inputRequired is an input-required result without the server's serverInfo in
// _meta (see complete): its input requests and request state, nothing else.
func inputRequired(res mcp.Result) mcp.Result {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		return &mcp.CallToolResult{Meta: withoutServerInfo(r.Meta), InputRequests: r.InputRequests, RequestState: r.RequestState}
	case *mcp.GetPromptResult:
		return &mcp.GetPromptResult{Meta: withoutServerInfo(r.Meta), InputRequests: r.InputRequests, RequestState: r.RequestState}
	case *mcp.ReadResourceResult:
		return &mcp.ReadResourceResult{Meta: withoutServerInfo(r.Meta), InputRequests: r.InputRequests, RequestState: r.RequestState}
	}
	return res
}

// inputRequests are the input requests of a result (nil when it is complete).
func inputRequests(res mcp.Result) (mcp.InputRequestMap, string) {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		return r.InputRequests, r.RequestState
	case *mcp.GetPromptResult:
		return r.InputRequests, r.RequestState
	case *mcp.ReadResourceResult:
		return r.InputRequests, r.RequestState
	}
	return nil, ""
}

// answer asks the Peer each input request, all at once, as the SDK does; the first
// failure cancels the rest. Unlike a request the server sends on its own, an input
// request names its call: the Peer gets that call's context alone, never the other
// calls under way ("inputRequests and requestState MUST NOT be used for any other
// request the client may be sending", SEP-2322), so that each caller answers its own.
func (s *Supervisor) answer(ctx context.Context, requests mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	p := s.opts.Peer
	if p == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "the server asked for input; nothing here can answer it"}
	}
	type question struct {
		method string
		params mcp.Params
	}
	questions := make(map[string]question, len(requests))
	for id, ir := range requests {
		switch r := ir.(type) {
		case *mcp.CreateMessageWithToolsParams:
			questions[id] = question{relay.MethodCreateMessage, r}
		case *mcp.ElicitParams:
			questions[id] = question{relay.MethodElicit, r}
		case *mcp.ListRootsParams:
			questions[id] = question{relay.MethodListRoots, r}
		default:
			return nil, fmt.Errorf("input request %q: %T is not forwarded", id, ir)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	var mu sync.Mutex
	answers := make(mcp.InputResponseMap, len(requests))
	for id, q := range questions {
		g.Go(func() error {
			res, err := p.Request(relay.MessageContext(gctx, []context.Context{ctx}), s.cfg.Name, q.method, q.params)
			if err != nil {
				return fmt.Errorf("input request %q (%s): %w", id, q.method, err)
			}
			resp, ok := res.(mcp.InputResponse)
			if !ok {
				return fmt.Errorf("input request %q: %T is no answer to %s", id, res, q.method)
			}
			mu.Lock()
			answers[id] = resp
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return answers, nil
}

// withAnswers is req again, carrying the answers and the server's state; the
// original params are not changed (the caller owns them).
func withAnswers(req mcp.Request, answers mcp.InputResponseMap, state string) (mcp.Request, error) {
	cs, _ := req.GetSession().(*mcp.ClientSession)
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParams:
		c := *p
		c.InputResponses, c.RequestState = answers, state
		return &mcp.ClientRequest[*mcp.CallToolParams]{Session: cs, Params: &c}, nil
	case *mcp.GetPromptParams:
		c := *p
		c.InputResponses, c.RequestState = answers, state
		return &mcp.ClientRequest[*mcp.GetPromptParams]{Session: cs, Params: &c}, nil
	case *mcp.ReadResourceParams:
		c := *p
		c.InputResponses, c.RequestState = answers, state
		return &mcp.ClientRequest[*mcp.ReadResourceParams]{Session: cs, Params: &c}, nil
	}
	return nil, fmt.Errorf("input requests in the answer to %T are not supported", req.GetParams())
}
