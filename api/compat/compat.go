// Package compat is the HTTP API's endpoints compatible with the providers' own, so
// that any OpenAI or Anthropic client, pointed at Switchboard, gets every MCP
// server's tools by changing its base URL:
//
//   - POST /v1/chat/completions and GET /v1/models: OpenAI's Chat Completions
//     (chat.go);
//   - POST /v1/responses, GET and DELETE /v1/responses/{id}, GET
//     /v1/responses/{id}/input_items: OpenAI's Responses, kept as sessions of the
//     configured store (responses.go, responses_stream.go, responses_items.go);
//   - POST /v1/messages: Anthropic's Messages (messages.go, messages_stream.go), its
//     message threads kept as sessions of the store too (messages_thread.go), and
//     POST /v1/messages/count_tokens, counted by an Anthropic backend
//     (messages_count.go).
//
// Each runs an unattended turn of a conversation.Runner over the request's own
// messages (turn.go): the catalog's tools run here, the request's own tools are
// returned to the client, and nobody is asked anything during the turn. Package api
// mounts the Handler's methods in its route table, behind its middleware (token,
// identity, limits), and writes its middleware's errors in these endpoints' forms
// (WriteOpenAIError, WriteAnthropicError); this package imports none of api.
package compat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/session"
)

// Source is the source of the calls of these endpoints' turns in the recent calls
// (conversation.Call.Source).
const Source = "chat"

// Options configure a Handler; every zero field is a usable default.
type Options struct {
	// Conversations runs the turns; nil means no model is configured: every endpoint
	// but GET /v1/models and GET /v1/responses/{id} answers 503 with NoModel.
	Conversations *conversation.Runner
	// NoModel says why there is no model and how to configure one.
	NoModel string
	// Model names the configured model where the providers' APIs show one (GET
	// /v1/models, and the requests that name none); "" is "switchboard".
	Model string
	// Sessions keeps the responses of POST /v1/responses (a session each, the
	// response object in its metadata); nil: none is kept.
	Sessions *session.Janitor
	// MaxRequestBytes caps a request body (413 past it); default 4 MiB, as the
	// API's.
	MaxRequestBytes int64
	// Observer watches every turn started here (conversation.Request.Observer).
	Observer *conversation.Observer
	// Closing, when done, says the service is shutting down and has cancelled what
	// was under way at the end of its grace: a turn cancelled then says so.
	Closing context.Context
	// Logger gets the endpoints' lines when a request carries no logger of its own
	// (httpx.WithLogger); nil discards them.
	Logger *slog.Logger
}

// Handler serves the compatible endpoints: mount each method at its route.
type Handler struct {
	opts Options
	log  *slog.Logger
	// steps keeps the catalog calls of mixed steps for the requests that answer
	// their client calls (clienttool.go).
	steps *stepKeeper
}

// New returns the endpoints' Handler; opts, nil for the defaults, gives the Runner
// of their turns and the rest.
func New(opts *Options) *Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxRequestBytes <= 0 {
		o.MaxRequestBytes = 4 << 20
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Handler{opts: o, log: log, steps: newStepKeeper()}
}

// logOf is the logger of the request ctx belongs to, or the Handler's.
func (h *Handler) logOf(ctx context.Context) *slog.Logger { return httpx.Logger(ctx, h.log) }

// processStart is when the process started: the "created" of the model listed.
var processStart = time.Now()

// defaultModelName answers for a model that Options.Model does not name.
const defaultModelName = "switchboard"

func (h *Handler) modelName() string {
	if h.opts.Model != "" {
		return h.opts.Model
	}
	return defaultModelName
}

// apiError is an error with the status it is written with, in whichever form.
type apiError = apiwire.Error

// turnRequest is the prelude of every endpoint that runs a turn: 503 when no model
// is configured, else the request's JSON object read within its limit; a refusal is
// written with writeErr, the endpoint's own error form, and ok is false.
func (h *Handler) turnRequest(w http.ResponseWriter, r *http.Request, writeErr func(http.ResponseWriter, *apiError)) (raw map[string]json.RawMessage, ok bool) {
	if h.opts.Conversations == nil {
		writeErr(w, errorf(http.StatusServiceUnavailable, apiwire.CodeNoModel, "%s", h.opts.NoModel))
		return nil, false
	}
	if e := httpx.DecodeBody(w, r, &raw, h.opts.MaxRequestBytes, false); e != nil {
		writeErr(w, e)
		return nil, false
	}
	return raw, true
}

func errorf(status int, code, format string, args ...any) *apiError {
	return httpx.Errorf(status, code, format, args...)
}

func writeJSON(w http.ResponseWriter, status int, v any) { httpx.WriteJSON(w, status, v) }

// openAIError is the error body OpenAI's clients read: {"error": {"message", "type",
// "param", "code"}}.
type openAIError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    string  `json:"code"`
}

// WriteOpenAIError writes e in OpenAI's form, with its status.
func WriteOpenAIError(w http.ResponseWriter, e *apiError) {
	typ := "invalid_request_error"
	if e.Status >= 500 {
		typ = "server_error"
	}
	writeJSON(w, e.Status, map[string]openAIError{"error": {Message: e.Message, Type: typ, Code: e.Code}})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
