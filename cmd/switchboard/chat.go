package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
)

func (a *app) chatCommand() *cobra.Command {
	var (
		message, sessionID string
		asJSON             bool
		flags              agentFlags
	)
	cmd := &cobra.Command{
		Use:         "chat",
		Annotations: map[string]string{remoteKey: "yes"},
		Short:       "Talk to the configured model, which calls the servers' tools",
		Long: `Chat starts the configured servers and runs turns of the chat + tool loop: your
message goes to the model with the catalog's tools, the tools it calls run (each shown
on stderr as it happens, with its duration and whether it failed), and its answer is
streamed to stdout as it arrives.

With -m it runs one turn and exits; otherwise it reads one message per line from
stdin until end of input. The conversation is kept in a session (by default in a
SQLite file under --data-dir) and can be continued with --session ID; the id of a new
session is printed on stderr. --json writes the turn's events as JSON lines on stdout
instead.

The model comes from the config's "switchboard": {"model": {...}} or the flags. Its
API key is read from the environment variable the config names (apiKeyEnv; by default
OPENAI_API_KEY or ANTHROPIC_API_KEY), never from the command line. Tools whose server
lists them under "approve" are asked about on the terminal before they run.

Ctrl-C (SIGINT), in a turn or at the prompt, ends chat: it says which session keeps
what was said so far, and exits 130 (143 for SIGTERM).

With --server URL (or $SWITCHBOARD_SERVER; its token from $SWITCHBOARD_TOKEN) the turns
run at that running 'switchboard serve' instead (POST /v1/sessions/ID/messages), with
its model, servers and sessions, and nothing starts here; the calls that need approval
and the servers' questions are still asked on this terminal. Only -m, --session,
--system and --json go with it.

Exit codes: 0 the turn finished, 1 the model could not be reached (the message names
the base URL and the HTTP status), 2 usage or configuration error (a --data-dir that
cannot hold the sessions too), 130 interrupted.`,
		Args: exactArgs(0, "no arguments (the message goes in -m)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			// The API's rule for the ids clients choose: a session made here is reachable
			// there too.
			if sessionID != "" {
				if err := host.CheckSessionID(sessionID); err != nil {
					return commandLineError("--session %q: %v", sessionID, err)
				}
			}
			if a.remote != nil {
				return a.remoteChat(cmd, message, sessionID, flags.system, asJSON)
			}
			s, err := a.openService(0, &flags, nil)
			if err != nil {
				return err
			}
			defer s.Close()
			model, err := s.Model()
			if err != nil {
				return settingsError(err, flags.dataDir, false)
			}
			ss := s.SessionSettings()
			// The janitor owns the store, and the host the janitor: it removes
			// sessions idle past sessions.timeout while chat runs.
			janitor, err := s.Sessions(ctx)
			if err != nil {
				return settingsError(err, flags.dataDir, ss.Path != "" && flags.dataDir == "")
			}
			id, err := a.chatSession(ctx, janitor.Store(), sessionID, s.AgentSettings().System)
			if err != nil {
				return err
			}
			stopped := &chatStop{id: id, kept: ss.Store != "memory"}
			out := &chatOutput{stdout: a.stdout, stderr: a.stderr, json: asJSON, ctx: ctx}
			// What the servers ask their client during a call: sampling by the model
			// for the servers whose config allows it, elicitation on the terminal (a
			// turn's questions come in its stream: render).
			var elicit func(context.Context, string, *host.ElicitParams) (*host.ElicitResult, error)
			if stdinIsTerminal() {
				elicit = out.elicit
			}
			reqs := s.ServerRequests(model, elicit)
			if err := s.start(ctx, reqs.Capabilities(s.AnySampling())); err != nil {
				if ctx.Err() != nil {
					return stopped.err(ctx, false)
				}
				return err
			}
			// The servers that wait for a sign-in, signed in to at this terminal
			// when a person is there to ask; else they stay out of the catalog. A
			// call that needs more access is signed in for during the turn.
			a.signInWaiting(ctx, s.Host)
			// The person at the terminal takes their time: no bound but the call's.
			conv, err := s.Attended(ctx, a.signInAgain(s.Host))
			if err != nil {
				return settingsError(err, flags.dataDir, false)
			}
			turn := func(text string) error {
				t := conv.Start(ctx, &host.TurnRequest{Session: id, User: text})
				for e := range t.Events() {
					out.render(ctx, t, e)
				}
				_, err := t.Wait()
				out.endTurn()
				if err != nil && ctx.Err() != nil {
					return stopped.err(ctx, true)
				}
				var le *host.ModelError
				switch {
				case errors.As(err, &le):
					return &exitError{code: exitFailed, err: err}
				case errors.Is(err, host.ErrSessionBusy):
					return &exitError{code: exitFailed, err: err}
				}
				return err
			}
			if cmd.Flags().Changed("message") {
				if strings.TrimSpace(message) == "" {
					return commandLineError("-m: the message is empty")
				}
				return turn(message)
			}
			return a.chatLoop(ctx, out, turn, stopped)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&message, "message", "m", "", "run one turn with this message and exit")
	f.StringVar(&sessionID, "session", "", "continue this session (created with this id when it does not exist: 1 to 128 characters of A-Z a-z 0-9 _ . -)")
	f.BoolVar(&asJSON, "json", false, "write the turn's events as JSON lines on stdout")
	flags.addModel(cmd)
	flags.addStore(cmd, true)
	markLocalOnly(cmd, "message", "session", "json", "system", "data-dir")
	return cmd
}

// chatSession returns the id of the session to talk in: id when given (created when
// it does not exist yet), else a new one, whose id is said on stderr.
func (a *app) chatSession(ctx context.Context, store host.SessionStore, id, system string) (string, error) {
	if id != "" {
		if _, err := store.Get(ctx, id); err == nil {
			return id, nil
		} else if !errors.Is(err, host.ErrSessionNotFound) {
			return "", err
		}
	}
	s := &host.Session{ID: id, System: system}
	if err := store.Create(ctx, s); err != nil {
		return "", err
	}
	if id == "" {
		fmt.Fprintf(a.stderr, "session %s (continue it with --session %s)\n", s.ID, s.ID)
	}
	return s.ID, nil
}

// chatLoop runs a turn for each line of stdin, prompting on stderr when stdin is a
// terminal, until the end of input or a signal (Ctrl-C at the prompt ends chat, as in
// a turn). A turn that fails for the model's sake is told and the loop goes on; the
// exit code is the last turn's.
func (a *app) chatLoop(ctx context.Context, out *chatOutput, turn func(string) error, stopped *chatStop) error {
	tty := stdinIsTerminal()
	var last error
	for {
		if tty {
			fmt.Fprint(a.stderr, "> ")
		}
		line, err := readLineCtx(ctx, os.Stdin)
		if ctx.Err() != nil {
			if tty {
				fmt.Fprintln(a.stderr) // after the prompt and the terminal's ^C
			}
			return stopped.err(ctx, false)
		}
		if err != nil { // the end of input
			return last
		}
		text := strings.TrimSpace(line)
		if text == "" {
			continue
		}
		last = turn(text)
		if last != nil {
			if ctx.Err() != nil {
				return last
			}
			fmt.Fprintf(a.stderr, "switchboard: %s\n", a.red.String(last.Error()))
		}
	}
}

// chatStop is what chat says when a signal stops it: the session the conversation is
// in, and whether its history outlives the process (not with --store memory).
type chatStop struct {
	id   string
	kept bool
}

// err is the error chat ends with after ctx ended, in a turn or at the prompt: exit
// 128+N for signal N (130 for Ctrl-C), and a message that says what was kept. In a
// turn, the store holds the user's message and each step that finished; the calls
// cut short are answered "interrupted" when the session next runs.
func (c *chatStop) err(ctx context.Context, inTurn bool) error {
	code, ok := signalExitCode(ctx)
	if !ok {
		code = exitFailed
	}
	what := "interrupted"
	if inTurn {
		what = "turn interrupted"
	}
	if !c.kept {
		return &exitError{code: code, err: fmt.Errorf("%s: session %s was in memory (--store memory): nothing of it is kept", what, c.id)}
	}
	if inTurn {
		return &exitError{code: code, err: fmt.Errorf("%s: session %s keeps its history up to the interruption (your message and every step that finished); continue it with --session %s", what, c.id, c.id)}
	}
	return &exitError{code: code, err: fmt.Errorf("%s: session %s keeps its history; continue it with --session %s", what, c.id, c.id)}
}

// askApproval asks on the terminal whether the call to name with args may run: the
// decision, and the reason the model reads when it is denied. Without a terminal the
// call is denied. A local chat's calls and a remote one's are asked alike.
func (o *chatOutput) askApproval(ctx context.Context, name, args string) (allow bool, reason string, err error) {
	if !stdinIsTerminal() {
		return false, "the user must approve " + name + " and no terminal was there to ask", nil
	}
	o.term.Lock() // one dialogue at a time
	defer o.term.Unlock()
	answer, err := o.ask(ctx, fmt.Sprintf("Allow %s %s? [y/N] ", name, args))
	if err != nil {
		return false, "", err
	}
	if !strings.HasPrefix(strings.ToLower(answer), "y") {
		return false, "the user declined the call to " + name, nil
	}
	return true, "", nil
}

// render shows one event of a local turn (t): the agent's as event does, a call
// that needs approval asked on the terminal (askApproval), a server's question as
// elicit does; their answers go back to the turn.
func (o *chatOutput) render(ctx context.Context, t *host.Turn, e host.TurnEvent) {
	switch e.Kind {
	case host.ApprovalRequired:
		allow, reason, _ := o.askApproval(ctx, e.Name, string(e.Approval.Arguments))
		_, _ = t.Decide(e.CallID, allow, reason) // an interrupted dialogue denies it
	case host.QuestionAsked:
		o.answer(ctx, t, e.Question)
	case host.QuestionClosed:
	default:
		o.event(e.Event)
	}
}

// answer asks a server's question on the terminal (no terminal: declined) while it
// waits, and gives the turn the answer; one the form does not take is said and
// asked again.
func (o *chatOutput) answer(ctx context.Context, t *host.Turn, q *host.Question) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-q.Done(): // answered, or closed: nobody waits for the terminal
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		res := &host.ElicitResult{Action: "decline"}
		switch {
		case !stdinIsTerminal():
		case q.Mode == "url":
			o.term.Lock()
			res = o.elicitURL(ctx, q.Server, q.Message, q.URL)
			o.term.Unlock()
		default:
			res = o.elicitForm(ctx, q.Server, q.Message, q.Form)
		}
		rep := host.Reply{Action: res.Action}
		if res.Action == "accept" && res.Content != nil {
			rep.Content, _ = json.Marshal(res.Content)
		}
		var ce *host.ContentError
		if err := t.Answer(q.ID, rep); errors.As(err, &ce) && stdinIsTerminal() && ctx.Err() == nil {
			fmt.Fprintf(o.stderr, "  (%s)\n", termText(ce.Error()))
			continue
		}
		return
	}
}

// chatOutput shows a turn: the answer on stdout as it streams, tool calls on stderr;
// or every event as a JSON line on stdout.
type chatOutput struct {
	stdout, stderr io.Writer
	json           bool
	// ctx is chat's: once a signal has ended it, a call that fails was cut short.
	ctx context.Context

	mu      sync.Mutex
	midLine bool // the answer's last delta did not end its line
	// term is held for a whole dialogue on the terminal (an approval, a form).
	term sync.Mutex
}

func (o *chatOutput) event(e host.StepEvent) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.json {
		writeEventJSON(o.stdout, e)
		return
	}
	switch e.Kind {
	case host.TextDelta:
		fmt.Fprint(o.stdout, e.Text)
		o.midLine = e.Text != "" && !strings.HasSuffix(e.Text, "\n")
	case host.ToolStarted:
		o.breakLine()
		fmt.Fprintf(o.stderr, "→ %s %s\n", e.Name, e.Arguments)
	case host.ToolFinished:
		status := "ok"
		switch {
		case e.IsError && o.ctx != nil && o.ctx.Err() != nil:
			status = "interrupted"
		case e.IsError:
			status = "error: " + firstLine(e.Result, 100)
		}
		fmt.Fprintf(o.stderr, "← %s %s %s\n", e.Name, e.Duration.Round(time.Millisecond), status)
	}
}

// endTurn ends the answer's last line.
func (o *chatOutput) endTurn() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.breakLine()
}

func (o *chatOutput) breakLine() {
	if o.midLine {
		fmt.Fprintln(o.stdout)
		o.midLine = false
	}
}

// ask puts a question on stderr and reads a line of stdin.
func (o *chatOutput) ask(ctx context.Context, question string) (string, error) {
	o.mu.Lock()
	o.breakLine()
	fmt.Fprint(o.stderr, question)
	o.mu.Unlock()
	s, err := readLineCtx(ctx, os.Stdin)
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	_ = err // the end of input answers as an empty line
	return strings.TrimSpace(s), nil
}

// eventJSON is one line of chat --json.
type eventJSON struct {
	Type       string      `json:"type"`
	Session    string      `json:"session"`
	Step       int         `json:"step,omitempty"`
	Text       string      `json:"text,omitempty"`
	CallID     string      `json:"callId,omitempty"`
	Name       string      `json:"name,omitempty"`
	Arguments  string      `json:"arguments,omitempty"`
	DurationMs *float64    `json:"durationMs,omitempty"`
	IsError    bool        `json:"isError,omitempty"`
	Result     *string     `json:"result,omitempty"`
	Usage      *host.Usage `json:"usage,omitempty"`
}

func writeEventJSON(w io.Writer, e host.StepEvent) {
	j := eventJSON{Type: string(e.Kind), Session: e.Session, Step: e.Step, Text: e.Text, CallID: e.CallID, Name: e.Name, Arguments: e.Arguments}
	switch e.Kind {
	case host.ToolFinished:
		ms := float64(e.Duration.Microseconds()) / 1000
		j.DurationMs, j.IsError, j.Result = &ms, e.IsError, &e.Result
	case host.StepUsage, host.TurnUsage:
		j.Usage = &e.Usage
	}
	b, _ := json.Marshal(j)
	fmt.Fprintf(w, "%s\n", b)
}
