package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/telemetry"
	"github.com/switchboard-mcp/switchboard/tool"
)

// maxNamesListed caps the tool names an unknown-tool result lists.
const maxNamesListed = 20

// runCalls runs the calls of one step, at most ParallelTools at once, stores each
// result as soon as it is ready and returns them in call order. Every failure is an
// error result; the error is the store's, or ctx's when the turn was cancelled. A
// cancelled turn answers the calls it cut short, and those it never started, with
// InterruptedText before it returns: the session's history is whole when the caller
// hears of the cancellation (a service shutting down answers its client then), not
// only once a next turn repairs it.
func (r *run) runCalls(step int, calls []llm.Call) ([]llm.Message, error) {
	// Looked up afresh: a tool that joined since the request was sent may be called.
	lookup := r.lookup()
	results := make([]llm.Message, len(calls))
	sem := make(chan struct{}, r.opts.ParallelTools)
	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		storeErr error
	)
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-r.ctx.Done():
				return // never started: answered below
			}
			defer func() { <-sem }()
			msg := toolMessage(c, r.call(step, c, lookup))
			if err := r.store(llm.Usage{}, msg); err != nil {
				errMu.Lock()
				storeErr = errors.Join(storeErr, err)
				errMu.Unlock()
				return
			}
			results[i] = msg
		}()
	}
	wg.Wait()
	if err := r.ctx.Err(); err != nil {
		var owed []llm.Message
		for i, c := range calls {
			if results[i].Role == "" {
				results[i] = interrupted(c)
				owed = append(owed, results[i])
			}
		}
		if len(owed) > 0 {
			if serr := r.store(llm.Usage{}, owed...); serr != nil {
				r.log.Warn("could not store the interrupted calls' results: the next turn answers them", "calls", len(owed), "error", serr)
			}
		}
		return results, err
	}
	return results, storeErr
}

// lookup finds the tools the model may call: by the toolset's own Lookup where it
// has one (a hub, a deferred view, which also finds the tools it does not list),
// else in a map of its list.
func (r *run) lookup() func(string) (tool.Tool, bool) {
	if l, ok := r.tools.(interface {
		Lookup(string) (tool.Tool, bool)
	}); ok {
		return l.Lookup
	}
	known := map[string]tool.Tool{}
	for _, t := range r.tools.Tools() {
		known[t.Name] = t
	}
	return func(name string) (tool.Tool, bool) { t, ok := known[name]; return t, ok }
}

// call runs one call with its events around it. Its duration is the call's own:
// timed from approval on, so that a person taking a minute to decide does not make
// a fast tool look slow.
func (r *run) call(step int, c llm.Call, lookup func(string) (tool.Tool, bool)) *tool.Result {
	start := time.Now()
	def, known := lookup(c.Name)
	server := def.Server
	r.emit(Event{Kind: ToolStarted, Step: step, CallID: c.ID, Name: c.Name, Server: server, Arguments: c.Arguments})
	ctx, span := telemetry.Tracer().Start(r.ctx, "execute_tool "+c.Name, trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", c.Name),
		attribute.String("gen_ai.tool.call.id", c.ID),
		attribute.String("gen_ai.tool.type", "function")))
	mark := &callMark{run: r, id: c.ID, name: c.Name}
	res := mark.withNotes(r.execute(ctx, step, c, def, known, &start, mark))
	if r.ctx.Err() != nil && res.IsError {
		// Cut short by the cancellation, most likely: its error says nothing of the
		// tool, and the result is lost.
		res = tool.ErrorResult("%s", InterruptedText)
	}
	if res.IsError && span.IsRecording() {
		span.SetStatus(codes.Error, "the tool's result is an error")
		span.SetAttributes(attribute.String("error.type", "tool_error"))
	}
	span.End()
	d := time.Since(start)
	if r.opts.OnEvent != nil {
		r.emit(Event{Kind: ToolFinished, Step: step, CallID: c.ID, Name: c.Name, Server: server, Arguments: c.Arguments,
			Duration: d, IsError: res.IsError, Result: tool.Text(res)})
	}
	r.log.Debug("tool call", "step", step, "call_id", c.ID, "tool", c.Name, "duration", d, "error", res.IsError)
	return res
}

// execute checks a call to def (known: the toolset has it), asks for approval and
// runs it; whatever goes wrong is an error result that says what to do about it. It sets *start to when the approved
// call began. The call's context carries mark, by which the servers' questions
// during the call find the turn.
func (r *run) execute(ctx context.Context, step int, c llm.Call, def tool.Tool, known bool, start *time.Time, mark *callMark) *tool.Result {
	args, bad := arguments(c)
	if bad != nil {
		return bad
	}
	if !known {
		if r.allow != nil {
			// Maybe a tool outside the caller's profiles: refused, as every call the
			// toolset audits (a hub's) is.
			tool.AuditRefused(ctx, r.opts.Tools, c.Name, args)
		}
		return r.unknownTool(c.Name)
	}
	if r.opts.Approve != nil {
		d, err := r.approve(Call{Session: r.sess.ID, Step: step, ID: c.ID, Name: c.Name, Arguments: args, Tool: def})
		switch {
		case err != nil:
			return tool.ErrorResult("the call to %q was not approved: %v", c.Name, err)
		case !d.Allow:
			reason := d.Reason
			if reason == "" {
				reason = "no reason given"
			}
			return tool.ErrorResult("the call to %q was denied: %s", c.Name, reason)
		}
		*start = time.Now()
	}
	// The servers' questions during the call find the turn by it (elicit.go).
	ctx = context.WithValue(ctx, callMarkKey{}, mark)
	if r.opts.ToolTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.opts.ToolTimeout)
		defer cancel()
	}
	res, err := r.invoke(ctx, c.Name, args)
	timedOut := r.opts.ToolTimeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) && r.ctx.Err() == nil
	switch {
	case timedOut && (err != nil || res == nil || res.IsError):
		return tool.ErrorResult("tool %q timed out after %s", c.Name, r.opts.ToolTimeout)
	case err != nil:
		return tool.ErrorResult("tool %q could not be called: %v", c.Name, err)
	case res == nil:
		return tool.TextResult("")
	}
	return res
}

// arguments reads a call's arguments text as format reads every provider's
// (llm.Call.Parse): empty means {}, and anything but a JSON object is answered with
// format's error result.
func arguments(c llm.Call) (json.RawMessage, *tool.Result) {
	p := c.Parse()
	if res := p.ErrorResult(); res != nil {
		return nil, res
	}
	return p.Args, nil
}

// approve asks the hook, which is the caller's code: a panic in it denies the call
// instead of taking the process down.
func (r *run) approve(c Call) (d Decision, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("approval hook panicked", "tool", c.Name, "call_id", c.ID, "panic", p, "stack", string(debug.Stack()))
			d, err = Decision{}, fmt.Errorf("the approval hook failed")
		}
	}()
	d = r.opts.Approve(r.ctx, c)
	if !d.Allow && r.ctx.Err() != nil {
		return d, r.ctx.Err()
	}
	return d, nil
}

// invoke calls the toolset. tool.Local recovers its functions' panics, but a
// Toolset may be anyone's: a panic below is the call's error result, not a crash.
func (r *run) invoke(ctx context.Context, name string, args json.RawMessage) (res *tool.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("tool call panicked", "tool", name, "panic", p, "stack", string(debug.Stack()))
			res, err = tool.ErrorResult("tool %q panicked: %v", name, p), nil
		}
	}()
	return r.tools.Call(ctx, name, args)
}

// unknownTool answers a call to a tool the toolset does not have, with the names it
// lists so that the model can correct itself, or, in deferred mode, how to find it.
func (r *run) unknownTool(name string) *tool.Result {
	var names []string
	for _, t := range r.tools.Tools() {
		names = append(names, t.Name)
	}
	if r.view != nil && r.view.Active() && !r.native {
		return tool.ErrorResult("unknown tool %q: find the tool you need with %s (a description in words) or %s (a pattern), then call it by the name the result gives",
			name, deferred.SearchToolName, deferred.RegexToolName)
	}
	if len(names) == 0 {
		return tool.ErrorResult("unknown tool %q: no tools are available now", name)
	}
	list := names
	more := ""
	if len(list) > maxNamesListed {
		list = list[:maxNamesListed]
		more = fmt.Sprintf(" and %d more", len(names)-maxNamesListed)
	}
	return tool.ErrorResult("unknown tool %q; the tools available are: %s%s", name, strings.Join(list, ", "), more)
}
