package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/host"
)

// chat against a service: the session is the service's (POST /v1/sessions), each
// turn a POST /v1/sessions/{id}/messages whose events stream back (docs/api.md,
// "Turns") and are shown as a local turn's are; the calls that wait for approval and
// the servers' questions are asked on the terminal and answered over the API.

// remoteChat runs chat's turns at the service: one with -m, else one per line of stdin.
func (a *app) remoteChat(cmd *cobra.Command, message, sessionID, system string, asJSON bool) error {
	ctx := cmd.Context()
	if cmd.Flags().Changed("message") && strings.TrimSpace(message) == "" {
		return commandLineError("-m: the message is empty")
	}
	if err := a.remoteModel(ctx); err != nil {
		return err
	}
	id, err := a.remoteChatSession(ctx, sessionID, system)
	if err != nil {
		if ctx.Err() != nil {
			return signalExit(ctx)
		}
		return err
	}
	// The history is the service's to keep: it outlives this process whatever the store.
	stopped := &chatStop{id: id, kept: true}
	out := &chatOutput{stdout: a.stdout, stderr: a.stderr, json: asJSON, ctx: ctx}
	turn := func(text string) error {
		err := a.remoteTurn(ctx, id, text, out)
		out.endTurn()
		if err != nil && ctx.Err() != nil {
			return stopped.err(ctx, true)
		}
		return err
	}
	if cmd.Flags().Changed("message") {
		return turn(message)
	}
	return a.chatLoop(ctx, out, turn, stopped)
}

// signalExit is the exit of a chat a signal ended before it had a session: 128+N
// for signal N.
func signalExit(ctx context.Context) error {
	code, ok := signalExitCode(ctx)
	if !ok {
		code = exitFailed
	}
	return &exitError{code: code, err: errors.New("interrupted")}
}

// remoteModel checks that the service has a model (GET /v1/models lists it), before
// a session is made for nothing: a usage error without, as a local chat's.
func (a *app) remoteModel(ctx context.Context) error {
	var models apiwire.Models
	if err := a.remote.getJSON(ctx, "/v1/models", &models); err != nil {
		return failed(err)
	}
	if len(models.Data) == 0 {
		return usageError("the switchboard service at %s has no model configured: set \"switchboard\": {\"model\": {...}} in its config, or start 'switchboard serve' with --model", a.remote.base)
	}
	return nil
}

// remoteChatSession is the id of the service's session to talk in: id when it
// exists, else a new one (with that id when given), whose id is said on stderr as
// a local chat says it.
func (a *app) remoteChatSession(ctx context.Context, id, system string) (string, error) {
	r := a.remote
	if id != "" {
		err := r.send(ctx, http.MethodGet, "/v1/sessions/"+url.PathEscape(id), nil, nil)
		var ae *apiError
		if err == nil {
			return id, nil
		} else if !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
			return "", failed(err)
		}
	}
	body := map[string]string{}
	if id != "" {
		body["id"] = id
	}
	if system != "" {
		body["system"] = system
	}
	var s host.Session
	if err := r.send(ctx, http.MethodPost, "/v1/sessions", body, &s); err != nil {
		return "", failed(err)
	}
	if id == "" {
		fmt.Fprintf(a.stderr, "session %s (continue it with --session %s)\n", s.ID, s.ID)
	}
	return s.ID, nil
}

// remoteTurn runs one turn at the service and shows its events as they stream.
func (a *app) remoteTurn(ctx context.Context, id, text string, out *chatOutput) error {
	res, err := a.remote.do(ctx, http.MethodPost, "/v1/sessions/"+url.PathEscape(id)+"/messages", map[string]string{"content": text}, "text/event-stream")
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Code == apiwire.CodeNoModel {
			// As a local chat without a model: the configuration's to fix.
			return usageError("the service at %s: %s", a.remote.base, ae.Message)
		}
		return failed(err)
	}
	defer res.Body.Close()
	t := &remoteTurnState{a: a, id: id, out: out, args: map[string]string{}}
	err = readEvents(res.Body, func(name string, data []byte) (bool, error) {
		return t.event(ctx, name, data)
	})
	if err == errStreamEnded {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &exitError{code: exitFailed, err: fmt.Errorf("the switchboard service at %s ended the turn's stream before the turn ended", a.remote.base)}
	}
	if err != nil && ctx.Err() == nil {
		var ee *exitError
		if !errors.As(err, &ee) {
			return a.remote.lost(ctx, err)
		}
	}
	return err
}

// errStreamEnded: the event stream ended before its last event (done or error).
var errStreamEnded = errors.New("the event stream ended")

// readEvents reads server-sent events from r and gives each to fn (its name, "" for
// none, and its data lines joined) until fn says it was the last. Comments (the
// keep-alives) are skipped.
func readEvents(r io.Reader, fn func(name string, data []byte) (last bool, err error)) error {
	br := bufio.NewReader(r)
	var (
		name string
		data [][]byte
	)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				return errStreamEnded
			}
			return err
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if len(data) == 0 {
				name = ""
				continue
			}
			last, err := fn(name, bytes.Join(data, []byte("\n")))
			if last || err != nil {
				return err
			}
			name, data = "", nil
		case line[0] == ':':
		case bytes.HasPrefix(line, []byte("event:")):
			name = string(bytes.TrimSpace(line[len("event:"):]))
		case bytes.HasPrefix(line, []byte("data:")):
			d := line[len("data:"):]
			data = append(data, bytes.TrimPrefix(d, []byte(" ")))
		}
	}
}

// remoteTurnState is what a turn's stream needs to remember: the calls' arguments
// (a result's event has none).
type remoteTurnState struct {
	a    *app
	id   string
	out  *chatOutput
	args map[string]string
}

// event shows one event of the stream; done and error are the last.
func (t *remoteTurnState) event(ctx context.Context, name string, data []byte) (bool, error) {
	switch name {
	case apiwire.EventDone:
		return decoded(t, name, data, t.done)
	case apiwire.EventError:
		return decoded(t, name, data, func(body apiwire.ErrorBody) (bool, error) {
			return true, &exitError{code: exitFailed, err: fmt.Errorf("the turn failed at the service: %s", body.Error.Message)}
		})
	case apiwire.EventText:
		return decoded(t, name, data, func(e apiwire.TextEvent) (bool, error) {
			t.out.event(host.StepEvent{Kind: host.TextDelta, Session: t.id, Step: e.Step, Text: e.Text})
			return false, nil
		})
	case apiwire.EventToolCall:
		return decoded(t, name, data, func(e apiwire.ToolCallEvent) (bool, error) {
			args := argumentsText(e.Arguments)
			t.args[e.CallID] = args
			t.out.event(host.StepEvent{Kind: host.ToolStarted, Session: t.id, Step: e.Step, CallID: e.CallID, Name: e.Name, Arguments: args})
			return false, nil
		})
	case apiwire.EventToolResult:
		return decoded(t, name, data, func(e apiwire.ToolResultEvent) (bool, error) {
			t.out.event(host.StepEvent{Kind: host.ToolFinished, Session: t.id, Step: e.Step, CallID: e.CallID, Name: e.Name, Arguments: t.args[e.CallID],
				Duration: time.Duration(e.DurationMs * float64(time.Millisecond)), IsError: e.IsError, Result: e.Result})
			return false, nil
		})
	case apiwire.EventApprovalRequired:
		return decoded(t, name, data, func(e apiwire.ApprovalRequiredEvent) (bool, error) { return false, t.approve(ctx, e) })
	case apiwire.EventInputRequired:
		return decoded(t, name, data, func(q apiwire.Question) (bool, error) { return false, t.answer(ctx, q) })
	case apiwire.EventInputClosed:
		return decoded(t, name, data, func(apiwire.InputClosedEvent) (bool, error) { return false, nil })
	}
	return false, nil // usage: the done event's reply has it, with each step's
}

// decoded gives fn the data of event name as its type; data that is not is the
// service's error.
func decoded[T any](t *remoteTurnState, name string, data []byte, fn func(T) (last bool, err error)) (bool, error) {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return true, t.bad(name, err)
	}
	return fn(v)
}

// done shows the end of the turn: its usage and its answer.
func (t *remoteTurnState) done(rp apiwire.Reply) (bool, error) {
	// The stream tells no step's usage as it happens: the reply has them.
	for i, st := range rp.Steps {
		t.out.event(host.StepEvent{Kind: host.StepUsage, Session: t.id, Step: i + 1, Usage: usageOf(st.Usage)})
	}
	t.out.event(host.StepEvent{Kind: host.TurnUsage, Session: t.id, Step: len(rp.Steps), Usage: usageOf(rp.Usage)})
	t.out.event(host.StepEvent{Kind: host.Answered, Session: t.id, Step: len(rp.Steps), Text: rp.Answer})
	return true, nil
}

// usageOf is u as the agent's events carry it.
func usageOf(u apiwire.Usage) host.Usage {
	return host.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
}

func (t *remoteTurnState) bad(name string, err error) error {
	return &exitError{code: exitFailed, err: fmt.Errorf("the switchboard service at %s sent a %q event that is not its API's (%v)", t.a.remote.base, name, err)}
}

// argumentsText is a call's arguments as the model sent them: the JSON object, or
// the string the API passes on when they were not JSON.
func argumentsText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// approve asks on the terminal whether the call may run, as a local chat does (no
// terminal: denied, with the reason the model sees), and sends the decision.
func (t *remoteTurnState) approve(ctx context.Context, e apiwire.ApprovalRequiredEvent) error {
	allow, reason, err := t.out.askApproval(ctx, e.Name, argumentsText(e.Arguments))
	if err != nil {
		return err // interrupted: the turn ends with the request
	}
	decision := map[string]any{"allow": allow}
	if !allow {
		decision["reason"] = reason
	}
	err = t.a.remote.send(ctx, http.MethodPost, "/v1/sessions/"+url.PathEscape(t.id)+"/approvals/"+url.PathEscape(e.CallID), decision, nil)
	return t.gone(err, "the call to "+e.Name)
}

// gone passes err on, but for a 404: what was asked waits no more (nobody decided
// in time, or the turn ended), and the stream says what came of it.
func (t *remoteTurnState) gone(err error, what string) error {
	var ae *apiError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		t.out.mu.Lock()
		t.out.breakLine()
		fmt.Fprintf(t.out.stderr, "switchboard: %s waits no more at the service: %s\n", what, ae.Message)
		t.out.mu.Unlock()
		return nil
	}
	return failed(err)
}

// answer asks a server's question on the terminal as a local chat does (no
// terminal: declined) and sends the answer; an answer the service finds does not fit
// the form is said and asked again.
func (t *remoteTurnState) answer(ctx context.Context, e apiwire.Question) error {
	p := &host.ElicitParams{Mode: e.Mode, Message: e.Message, URL: e.URL}
	if len(e.Schema) > 0 {
		var schema map[string]any
		if err := json.Unmarshal(e.Schema, &schema); err == nil {
			p.RequestedSchema = schema
		}
	}
	path := "/v1/sessions/" + url.PathEscape(t.id) + "/inputs/" + url.PathEscape(e.RequestID)
	for {
		res := &host.ElicitResult{Action: "decline"}
		if stdinIsTerminal() {
			var err error
			if res, err = t.out.elicit(ctx, e.Server, p); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		body := map[string]any{"action": res.Action}
		if res.Action == "accept" && res.Content != nil {
			body["content"] = res.Content
		}
		err := t.a.remote.send(ctx, http.MethodPost, path, body, nil)
		var ae *apiError
		if errors.As(err, &ae) && ae.Status == http.StatusBadRequest && stdinIsTerminal() {
			fmt.Fprintf(t.out.stderr, "  (%s)\n", termText(ae.Message))
			continue
		}
		return t.gone(err, e.Server+"'s question")
	}
}
