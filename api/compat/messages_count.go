package compat

import (
	"encoding/json"
	"net/http"

	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/llm"
)

// CountTokens answers POST /v1/messages/count_tokens, Anthropic's token counting
// (https://docs.anthropic.com/en/api/messages-count-tokens): the request (system,
// messages, the client's tools; no max_tokens) read as POST /v1/messages reads it,
// counted by the configured model's provider, {"input_tokens": N}. Only a backend
// that counts (llm.TokenCounter: llm/anthropic) can; any other is refused with a 400
// that says so. The catalog's tools, which a turn adds, are not counted: the count is
// of what the client sent.
func (h *Handler) CountTokens(w http.ResponseWriter, r *http.Request) {
	if h.opts.Conversations == nil {
		WriteAnthropicError(w, errorf(http.StatusServiceUnavailable, apiwire.CodeNoModel, "%s", h.opts.NoModel))
		return
	}
	counter, ok := h.opts.Conversations.Model().(llm.TokenCounter)
	if !ok {
		WriteAnthropicError(w, errorf(http.StatusBadRequest, apiwire.CodeUnsupported, "count_tokens: the configured model's provider cannot count tokens: only an Anthropic backend (\"provider\": \"anthropic\") can"))
		return
	}
	var raw map[string]json.RawMessage
	if e := httpx.DecodeBody(w, r, &raw, h.opts.MaxRequestBytes, false); e != nil {
		WriteAnthropicError(w, e)
		return
	}
	if _, ok := raw["max_tokens"]; ok {
		WriteAnthropicError(w, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "max_tokens: Extra inputs are not permitted"))
		return
	}
	raw["max_tokens"] = json.RawMessage("1") // read as a Messages request, which needs one
	_, sess, client, e := parseMessagesRequest(raw, nil)
	if e != nil {
		WriteAnthropicError(w, e)
		return
	}
	n, err := counter.CountTokens(r.Context(), &llm.Request{System: sess.System, Messages: sess.Messages, Tools: client})
	if err != nil {
		h.logOf(r.Context()).Info("tokens not counted", "error", err)
		WriteAnthropicError(w, httpx.TurnError(err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]int64{"input_tokens": n})
}
