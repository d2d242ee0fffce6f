// Package relay is the contract for what MCP servers send their client besides
// replies, between the side that holds the server connections (a hub) and the sides
// that answer for a client: a gateway, which passes everything on to its own MCP
// clients, and an agent, which answers sampling with its model.
//
// # Who sends what to whom
//
// A server speaks to its client (Switchboard's upstream connection) on its own in
// two ways. It sends requests, which the client must answer:
//
//   - [MethodCreateMessage] (sampling/createMessage): "a standardized way for servers
//     to request LLM sampling (“completions” or “generations”) from language models
//     via clients";
//   - [MethodElicit] (elicitation/create): a server asks the user for information, by
//     a form or a URL;
//   - [MethodListRoots] (roots/list): the filesystem boundaries the client offers.
//
// And it sends notifications: log messages ([NotificationLog], at the level a
// client set with logging/setLevel), progress of a request ([NotificationProgress]),
// changes of a subscribed resource ([NotificationResourceUpdated]), and the end of
// a URL elicitation ([NotificationElicitComplete]).
//
// The spec asks a client to say which requests it can answer: "Clients that support
// sampling MUST declare the sampling capability during initialization" (and
// likewise elicitation and roots); [CanAnswer] is that mapping.
//
// # The seam
//
// Whatever holds the connections is a [Source] (the hub is one). Each consumer
// registers a [Peer] with AddPeer and keeps the [PeerLink] it gets back:
//
//	link := h.AddPeer(myPeer)         // h: a *hub.Hub, as a relay.Source
//	defer link.Remove()
//	_ = link.SetLogLevel(ctx, "info") // what the Peer's clients want
//
// A Source with several Peers (one per gateway, plus an agent) hands every
// notification to every Peer, and each request to the Peers in the order they were
// added until one takes it: a Peer declines a request that is not for its clients
// by returning an error marked with [NotMine].
//
// A gateway in front of a Source that also offers prompts, resources, completions
// and subscriptions is a full proxy: that larger contract is [Upstreams].
//
// # Which call caused a message
//
// Over protocol 2025-11-25 (what upstream connections speak) a server "MAY send
// JSON-RPC requests and notifications before sending the JSON-RPC response. These
// messages SHOULD relate to the originating client request" (its Streamable HTTP
// transport) — but nothing on the wire says which request. So the context a Peer
// gets for a message carries the calls to that server under way when it arrived
// ([CallsUnderWay], oldest first), and the values of the newest of them: a Peer
// that put a value in its call's context (a gateway: which of its clients called)
// finds it there. When the calls come from more than one caller, which one caused
// the message is unknown, and a careful Peer asks no one rather than the wrong
// client.
//
// Progress is the exception: it names its request by the progress token the
// request carried ("Progress notifications MUST only reference tokens that: Were
// provided in an active request; Are associated with an in-progress operation").
//
// Protocol 2026-07-28 forbids a server to send those requests on its own
// (SEP-2322): it answers the call with input requests instead, and the client
// calls again with the answers. The upstream connection turns those into the same
// Peer requests, so a Peer sees one shape whichever protocol the server speaks.
package relay
