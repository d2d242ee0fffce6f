package relay

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Peer receives what a server sends its client besides replies (a gateway passes
// it on to its own clients, an agent answers sampling itself).
//
// The ctx a Peer gets has the server's request's cancellation and carries the calls
// to that server under way (see CallsUnderWay and the package comment).
type Peer interface {
	// Request answers a server-to-client request: sampling/createMessage
	// (params *mcp.CreateMessageWithToolsParams, result
	// *mcp.CreateMessageWithToolsResult), elicitation/create (*mcp.ElicitParams,
	// *mcp.ElicitResult) or roots/list (*mcp.ListRootsParams, *mcp.ListRootsResult).
	// One of several Peers declines a request that is not for its clients with
	// NotMine, and the next is asked.
	Request(ctx context.Context, server, method string, params mcp.Params) (mcp.Result, error)
	// Notify delivers a notification: notifications/message
	// (*mcp.LoggingMessageParams), notifications/progress
	// (*mcp.ProgressNotificationParams), notifications/resources/updated
	// (*mcp.ResourceUpdatedNotificationParams) or notifications/elicitation/complete
	// (*mcp.ElicitationCompleteParams). It runs on the connection's reading
	// goroutine, in order: keep it short.
	Notify(ctx context.Context, server, method string, params mcp.Params)
}

// PeerLink is a Peer's place with the Source that hands it the servers' messages.
type PeerLink interface {
	// SetLogLevel asks the servers for log messages at level and above on the
	// Peer's behalf; "" withdraws its wish. The servers are asked for the most
	// verbose level any Peer (or the program) wants; with none left they keep
	// the last (the protocol cannot unset it).
	SetLogLevel(ctx context.Context, level mcp.LoggingLevel) error
	// Remove stops handing the Peer messages and withdraws its log level.
	Remove()
}

// Source hands what servers send their client to Peers; *hub.Hub is one.
type Source interface {
	// AddPeer adds a receiver of the servers' requests and notifications to their
	// client, alongside any other (each gateway on a hub is one); its link sets the
	// log level the peer's clients want and removes it.
	AddPeer(Peer) PeerLink
}

// Upstreams is what a toolset that fronts MCP servers offers beyond tools, the
// whole of what a gateway forwards; *hub.Hub implements it (and says so at compile
// time, so that a changed method fails the build instead of a gateway quietly
// serving tools only).
type Upstreams interface {
	Prompts() []*mcp.Prompt
	Resources() []*mcp.Resource
	ResourceTemplates() []*mcp.ResourceTemplate
	GetPrompt(context.Context, *mcp.GetPromptParams) (*mcp.GetPromptResult, error)
	ReadResource(context.Context, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error)
	Complete(context.Context, *mcp.CompleteParams) (*mcp.CompleteResult, error)
	// SubscribeResource and UnsubscribeResource are counted: a server's
	// subscription lasts while any made through SubscribeResource has not been ended
	// (a gateway makes one per URI, for all its clients).
	SubscribeResource(ctx context.Context, uri string) error
	UnsubscribeResource(ctx context.Context, uri string) error
	// NotifyRootsChanged passes a client's notifications/roots/list_changed on.
	NotifyRootsChanged()
	Source
}

// ErrNotMine is what a Peer's Request returns, wrapped by NotMine, for a request
// that is not for its clients (it came during a call another peer's client made, or
// the peer has no client that could answer it): whoever hands requests to several
// peers (a hub, to several gateways) then asks the next.
var ErrNotMine = errors.New("not for this peer")

// NotMine marks err, a Peer's refusal, as ErrNotMine: errors.Is(NotMine(err),
// ErrNotMine) holds, and the error reads and unwraps as err.
func NotMine(err error) error { return notMine{err} }

type notMine struct{ error }

func (e notMine) Unwrap() error      { return e.error }
func (notMine) Is(target error) bool { return target == ErrNotMine }

// Methods a Peer receives.
const (
	MethodCreateMessage         = "sampling/createMessage"
	MethodElicit                = "elicitation/create"
	MethodListRoots             = "roots/list"
	NotificationLog             = "notifications/message"
	NotificationProgress        = "notifications/progress"
	NotificationResourceUpdated = "notifications/resources/updated"
	NotificationElicitComplete  = "notifications/elicitation/complete"
)

// CanAnswer reports whether a client with capabilities c said it can answer a
// server's request method: "Clients that support sampling MUST declare the sampling
// capability during initialization", and likewise elicitation and roots. (The SDK's
// Roots field cannot tell an empty roots capability from none; RootsV2 can.)
func CanAnswer(c *mcp.ClientCapabilities, method string) bool {
	if c == nil {
		return false
	}
	switch method {
	case MethodCreateMessage:
		return c.Sampling != nil
	case MethodElicit:
		return c.Elicitation != nil
	case MethodListRoots:
		return c.RootsV2 != nil || c.Roots.ListChanged
	}
	return false
}
