package compat

import (
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/conversation"
)

// A streamed response is OpenAI's typed events
// (https://platform.openai.com/docs/api-reference/responses-streaming), each named by
// its "type" in the event line too and numbered by "sequence_number": response.created
// and response.in_progress; for each message, response.output_item.added,
// response.content_part.added, response.output_text.delta as the model streams,
// response.output_text.done, response.content_part.done, response.output_item.done;
// for each function call, response.output_item.added,
// response.function_call_arguments.delta and .done, response.output_item.done; then
// response.completed (response.incomplete when the model ran out of tokens), or
// response.failed. There is no [DONE].

// responseStream writes one response's events.
type responseStream struct {
	sw     *httpx.SSEWriter
	rs     *response
	seq    int
	opened bool
	output []map[string]any
	// The message being streamed: its output index and text, step; open is false
	// between messages.
	open bool
	at   int
	text strings.Builder
	step int
}

// send writes an event, after response.created and response.in_progress.
func (st *responseStream) send(typ string, data map[string]any) {
	if !st.opened {
		st.opened = true
		st.send("response.created", map[string]any{"response": st.rs.object("in_progress", []map[string]any{}, nil)})
		st.send("response.in_progress", map[string]any{"response": st.rs.object("in_progress", []map[string]any{}, nil)})
	}
	data["type"], data["sequence_number"] = typ, st.seq
	st.seq++
	_ = st.sw.Send(typ, data)
}

// part is an event about the open message's text.
func (st *responseStream) part(m map[string]any) map[string]any {
	m["item_id"], m["output_index"], m["content_index"] = st.rs.itemID("msg", st.at), st.at, 0
	return m
}

// delta streams text of step, in a message of the step's own.
func (st *responseStream) delta(step int, text string) {
	if st.open && step != st.step {
		st.closeMessage()
	}
	if !st.open {
		st.open, st.at, st.step = true, len(st.output), step
		st.text.Reset()
		st.output = append(st.output, nil)
		st.send("response.output_item.added", map[string]any{"output_index": st.at, "item": st.rs.message(st.at, "", "in_progress")})
		st.send("response.content_part.added", st.part(map[string]any{"part": outputText("")}))
	}
	st.text.WriteString(text)
	st.send("response.output_text.delta", st.part(map[string]any{"delta": text, "logprobs": []any{}}))
}

func (st *responseStream) closeMessage() {
	text := st.text.String()
	st.send("response.output_text.done", st.part(map[string]any{"text": text, "logprobs": []any{}}))
	st.send("response.content_part.done", st.part(map[string]any{"part": outputText(text)}))
	item := st.rs.message(st.at, text, "completed")
	st.output[st.at] = item
	st.send("response.output_item.done", map[string]any{"output_index": st.at, "item": item})
	st.open = false
}

// finish streams the rest of the turn's output: the message still open (or an empty
// one when the turn said nothing and called nothing), then the client's calls.
func (st *responseStream) finish(t *conversation.Result) {
	if !st.open && len(st.output) == 0 && len(t.ClientCalls) == 0 {
		st.delta(0, "")
	}
	if st.open {
		st.closeMessage()
	}
	for _, c := range t.ClientCalls {
		n := len(st.output)
		id := st.rs.itemID("fc", n)
		item := st.rs.functionCall(n, c, "completed")
		st.output = append(st.output, item)
		st.send("response.output_item.added", map[string]any{"output_index": n, "item": st.rs.functionCall(n, c, "in_progress")})
		st.send("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": n, "delta": c.Arguments})
		st.send("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": n, "name": c.Name, "arguments": c.Arguments})
		st.send("response.output_item.done", map[string]any{"output_index": n, "item": item})
	}
}

// fail ends the stream with response.failed, saying why, after the message that was
// streaming (its text so far).
func (st *responseStream) fail(e *apiError) {
	if st.open {
		st.closeMessage()
	}
	obj := st.rs.object("failed", st.output, nil)
	obj["error"] = map[string]any{"code": e.Code, "message": e.Message}
	st.send("response.failed", map[string]any{"response": obj})
	_ = st.sw.Flush()
}

// streamResponse runs the response's turn and streams it. A turn that fails before
// the model said anything gets a plain error with its status, as a chat
// completion's; one that fails later ends with response.failed.
func (h *Handler) streamResponse(w http.ResponseWriter, r *http.Request, rs *response, turn *conversation.Request) {
	log := h.logOf(r.Context()).With("response", rs.id)
	st := &responseStream{sw: httpx.NewSSEWriter(w), rs: rs, output: []map[string]any{}}
	formatted := turn.Output != nil
	t, err := st.sw.Follow(h.startTurn(r.Context(), turn), func(evs []conversation.Event) {
		for _, e := range streamedText(evs, formatted) {
			st.delta(e.Step, e.Text)
		}
	})
	if err != nil {
		log.Info("response failed", "error", err)
		e := h.turnError(err, rs.req.outputParam())
		if !st.sw.Started() {
			WriteOpenAIError(w, e)
			return
		}
		st.fail(e)
		return
	}
	h.keepStep(r, t)
	for _, e := range answerDelta(t, formatted) {
		st.delta(e.Step, e.Text)
	}
	st.finish(t)
	obj := rs.object("completed", st.output, t)
	if e := h.keep(r.Context(), rs, turn.InMemory, obj); e != nil {
		log.Info("response not kept", "error", e)
		st.fail(e)
		return
	}
	log.Info("response done", "steps", len(t.Steps))
	final := "response.completed"
	if obj["status"] == "incomplete" {
		final = "response.incomplete"
	}
	st.send(final, map[string]any{"response": obj})
	_ = st.sw.Flush()
}
