package relay

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What a caller that fronts clients of its own (a gateway) says of the client a
// request is for, for the servers of protocol 2026-07-28, which read it in each
// request rather than once per connection (SEP-2575, SEP-2322).

// InputRound is one round of a multi-round-trip request (SEP-2322) whose caller
// takes the server's input requests itself, as a gateway's client of 2026-07-28
// does: an upstream connection that gets "input required" returns that result (its
// input requests, under the server's own keys, and its request state) instead of
// answering it through the Peer, and sends Responses and State, the client's
// answers to the previous round and the server's state of it, with the request.
// The first round has neither.
type InputRound struct {
	Responses mcp.InputResponseMap
	State     string
}

type inputRoundKey struct{}

// WithInputRound marks ctx's request as a round of r's kind.
func WithInputRound(ctx context.Context, r InputRound) context.Context {
	return context.WithValue(ctx, inputRoundKey{}, r)
}

// InputRoundOf returns the round ctx's request is, if its caller takes input
// requests itself.
func InputRoundOf(ctx context.Context) (InputRound, bool) {
	r, ok := ctx.Value(inputRoundKey{}).(InputRound)
	return r, ok
}

type capabilitiesKey struct{}

// WithClientCapabilities says which of a server's requests the client that ctx's
// request is for can answer (sampling, elicitation, roots: what CanAnswer reads).
// A connection of 2026-07-28 declares no more than those in the request's _meta, so
// that the server asks that client for nothing it cannot answer, or refuses a
// request that needs it ("-32021 missing required client capability", SEP-2575).
func WithClientCapabilities(ctx context.Context, c *mcp.ClientCapabilities) context.Context {
	return context.WithValue(ctx, capabilitiesKey{}, c)
}

// ClientCapabilitiesOf returns what WithClientCapabilities put in ctx.
func ClientCapabilitiesOf(ctx context.Context) (*mcp.ClientCapabilities, bool) {
	c, ok := ctx.Value(capabilitiesKey{}).(*mcp.ClientCapabilities)
	return c, ok && c != nil
}
