package compat

import (
	"encoding/json"
	"net/http"

	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/conversation"
)

// streamMessage streams a message's turn as Anthropic's events
// (https://docs.anthropic.com/en/docs/build-with-claude/streaming): message_start,
// then its text as one text block (content_block_start, ping, content_block_delta
// with text_delta as the model streams it, the text of every step, steps apart by a
// blank line, content_block_stop), then each call to the client's tools as a tool_use
// block whose input comes in an input_json_delta, then message_delta with the stop
// reason and the usage, and message_stop. A turn that fails before any text gets a
// plain error with its status; one that fails later ends the stream with an error
// event, as Anthropic's does.
func (h *Handler) streamMessage(w http.ResponseWriter, r *http.Request, m *message, turn *conversation.Request) {
	log := h.logOf(r.Context()).With("message", m.id)
	sw := httpx.NewSSEWriter(w)
	sw.Opening = &httpx.SSEEvent{Name: "message_start", Data: map[string]any{"type": "message_start", "message": m.body([]map[string]any{}, anthropicUsage{})}}
	sw.EncodeFailed = func(_ string, err error) (string, any) {
		return "error", anthropicError(errorf(http.StatusInternalServerError, apiwire.CodeInternal, "encoding an event: %v", err))
	}
	blocks := 0 // the blocks started
	var join stepJoin
	textOpen := false
	start := func(block map[string]any) {
		_ = sw.Send("content_block_start", map[string]any{"type": "content_block_start", "index": blocks, "content_block": block})
		if blocks == 0 {
			_ = sw.Send("ping", map[string]string{"type": "ping"})
		}
	}
	delta := func(d map[string]any) {
		_ = sw.Send("content_block_delta", map[string]any{"type": "content_block_delta", "index": blocks, "delta": d})
	}
	stop := func() {
		_ = sw.Send("content_block_stop", map[string]any{"type": "content_block_stop", "index": blocks})
		blocks++
	}
	send := func(evs []conversation.Event) {
		for _, ev := range evs {
			text := join.text(ev)
			if !textOpen {
				start(map[string]any{"type": "text", "text": ""})
				textOpen = true
			}
			delta(map[string]any{"type": "text_delta", "text": text})
		}
	}
	formatted := turn.Output != nil
	res, err := sw.Follow(h.startTurn(r.Context(), turn), func(evs []conversation.Event) { send(streamedText(evs, formatted)) })
	// fail answers e: as the response when nothing was streamed yet, else as the
	// stream's error event.
	fail := func(e *apiError) {
		if !sw.Started() {
			WriteAnthropicError(w, e)
			return
		}
		_ = sw.Send("error", anthropicError(e))
		_ = sw.Flush()
	}
	if err != nil {
		log.Info("message failed", "error", err)
		fail(h.turnError(err, m.output))
		return
	}
	if e := m.kept(); e != nil {
		log.Info("message not kept", "error", e)
		fail(e)
		return
	}
	log.Info("message done", "steps", len(res.Steps))
	h.keepStep(r, res)
	send(answerDelta(res, formatted))
	if textOpen {
		stop()
	}
	for _, c := range res.ClientCalls {
		start(toolUseBlock(c, json.RawMessage("{}")))
		if in := callInput(c); string(in) != "{}" {
			delta(map[string]any{"type": "input_json_delta", "partial_json": string(in)})
		}
		stop()
	}
	_ = sw.Send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason(res), "stop_sequence": nil},
		"usage": anthropicUsage{res.Usage.InputTokens, res.Usage.OutputTokens}})
	_ = sw.Send("message_stop", map[string]string{"type": "message_stop"})
	_ = sw.Flush()
}
