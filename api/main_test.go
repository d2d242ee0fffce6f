package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/llm"
	llmanthropic "github.com/switchboard-mcp/switchboard/llm/anthropic"
	"github.com/switchboard-mcp/switchboard/llm/openai"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// The test binary doubles as the demo servers' executable: demo.Config runs
// "EXE demo-server clock".
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "demo-server" {
		if err := demo.Run(context.Background(), os.Args[2], nil); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(testenv.Main(m))
}

// clockServer is the demo clock server's config, run from the test binary.
func clockServer(t testing.TB) config.Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range demo.Config(exe).Servers {
		if s.Name == "clock" {
			return s
		}
	}
	t.Fatal("no demo clock server")
	return config.Server{}
}

// env is an API served on loopback over a started hub.
type env struct {
	t    *testing.T
	url  string
	hub  *hub.Hub
	srv  *api.Server
	logs *testenv.Buffer
	fake *fakellm.Server
	// token is sent on every request of do unless the request sets Authorization.
	token string
	done  chan error // Serve's return
}

type setup struct {
	servers []config.Server
	opts    api.Options
	model   bool // a fake OpenAI model running fakellm.Rules
	gateway bool // mount a gateway of the hub at /mcp and /sse
	script  fakellm.Script
	// agent, when set, changes the options of the agent that model builds.
	agent func(*agent.Options)
	// conv is the options of the turns' conversation.Runner that model builds
	// (Options.Conversations); its NeedsApproval, when nil, is the servers' policy,
	// as host.Host.Conversations's.
	conv conversation.Options
	// ask: the servers are told their client can ask the person (elicitation, form
	// and URL mode), and an agent.ServerRequests on the hub passes their questions
	// to the turns, as serve's host does.
	ask bool
	// upstream, when set, is the servers' options instead of testserver.Fast().
	upstream *upstream.Options
	// anthropic: model's fake model is Anthropic's (llm/anthropic), not OpenAI's.
	anthropic bool
}

// start starts the hub of su.servers (the clock server when none), an API over it with
// su.opts, and serves it on a free loopback port until the test ends.
func start(t *testing.T, su setup) *env {
	t.Helper()
	if su.servers == nil {
		su.servers = []config.Server{clockServer(t)}
	}
	logs := &testenv.Buffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if su.upstream == nil {
		su.upstream = testserver.Fast()
	}
	h := hub.New(&config.Config{Source: "<test>", Servers: su.servers}, &hub.Options{Logger: log, Upstream: su.upstream})
	if su.ask {
		h.SetCapabilities(gateway.AllForwardable())
		h.AddPeer(&agent.ServerRequests{Logger: log})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx); err != nil {
		h.Close()
		t.Fatalf("hub start: %v", err)
	}
	e := &env{t: t, hub: h, logs: logs, token: su.opts.Token, done: make(chan error, 1)}
	o := su.opts
	o.Logger, o.Version = log, "test"
	if su.gateway {
		gw := gateway.New(h, nil)
		t.Cleanup(func() { gw.Close() })
		o.Gateway = gw.Handler(nil)
	}
	if o.Sessions == nil {
		o.Sessions = session.NewJanitor(session.NewMemory(), nil)
	}
	if su.model || su.script != nil {
		script := su.script
		if script == nil {
			script = fakellm.Rules()
		}
		var model llm.Model
		var err error
		if su.anthropic {
			e.fake = fakellm.StartAnthropic(t, script)
			model, err = llmanthropic.New("test-model", &llmanthropic.Options{BaseURL: e.fake.URL, MaxRetries: -1})
		} else {
			e.fake = fakellm.StartOpenAI(t, script)
			model, err = openai.New("test-model", &openai.Options{BaseURL: e.fake.URL, MaxRetries: -1})
		}
		if err != nil {
			t.Fatal(err)
		}
		ao := agent.Options{Tools: h, Logger: log}
		if su.agent != nil {
			su.agent(&ao)
		}
		co := su.conv
		if co.NeedsApproval == nil {
			co.NeedsApproval = conversation.ServerPolicy(h.Server)
		}
		o.Conversations = conversation.New(agent.New(model, o.Sessions.Store(), &ao), &co)
	}
	srv, err := api.New(h, &o)
	if err != nil {
		h.Close()
		t.Fatalf("api.New: %v", err)
	}
	e.srv = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.url = "http://" + ln.Addr().String()
	go func() { e.done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		e.shutdown(5 * time.Second)
		o.Sessions.Close()
		h.Close()
		if t.Failed() {
			t.Logf("log:\n%s", logs)
		}
	})
	return e
}

// shutdown shuts the API down with grace and waits for Serve; a second call does nothing.
func (e *env) shutdown(grace time.Duration) error {
	if e.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := e.srv.Shutdown(ctx)
	if serr := <-e.done; serr != nil {
		e.t.Errorf("Serve: %v", serr)
	}
	e.srv = nil
	return err
}

// response is one HTTP exchange's outcome.
type response struct {
	status int
	header http.Header
	body   string
}

func (r response) String() string { return r.body }

// errorOf decodes an error body.
func (r response) errorOf(t *testing.T) (code, message string, suggestions []string) {
	t.Helper()
	var b struct {
		Error struct {
			Code        string   `json:"code"`
			Message     string   `json:"message"`
			Suggestions []string `json:"suggestions"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.body), &b); err != nil || b.Error.Code == "" {
		t.Fatalf("not an error body (%v): %s", err, r.body)
	}
	return b.Error.Code, b.Error.Message, b.Error.Suggestions
}

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.body), v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

// want fails the test unless the status is status and the body has every sub.
func (r response) want(t *testing.T, status int, subs ...string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	for _, s := range subs {
		if !strings.Contains(r.body, s) {
			t.Errorf("body does not contain %q: %s", s, r.body)
		}
	}
}

// do sends one request; body is sent as is when a string, else as JSON. Headers are
// given as "Name: value".
func (e *env) do(method, path string, body any, headers ...string) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if e.token != "" {
		req.Header.Set("Authorization", "Bearer "+e.token)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := client.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return response{status: res.StatusCode, header: res.Header, body: string(data)}
}

// client has no idle connections left at the end of a test: each request closes its own.
var client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Minute}

// event is one server-sent event.
type event struct {
	name string
	data string
}

// stream is a text/event-stream response read event by event.
type stream struct {
	res *http.Response
	rd  *bufio.Reader
}

// openStream posts body to path asking for an event stream.
func (e *env) openStream(path string, body any) (*stream, response) {
	e.t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, e.url+path, bytes.NewReader(data))
	req.Header.Set("Accept", "text/event-stream")
	if e.token != "" {
		req.Header.Set("Authorization", "Bearer "+e.token)
	}
	res, err := client.Do(req)
	if err != nil {
		e.t.Fatalf("POST %s: %v", path, err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return nil, response{status: res.StatusCode, header: res.Header, body: string(b)}
	}
	s := &stream{res: res, rd: bufio.NewReader(res.Body)}
	e.t.Cleanup(func() { res.Body.Close() })
	return s, response{status: res.StatusCode, header: res.Header}
}

// next reads the next event; ok is false at the end of the stream.
func (s *stream) next() (ev event, ok bool) {
	for {
		line, err := s.rd.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			ev.name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			ev.data += line[len("data: "):]
		case line == "" && ev.name != "":
			return ev, true
		}
		if err != nil {
			return ev, false
		}
	}
}

// until reads events up to and including the first named name, failing at the end of
// the stream; it returns every event read.
func (s *stream) until(t *testing.T, name string) []event {
	t.Helper()
	var evs []event
	for {
		ev, ok := s.next()
		if !ok {
			t.Fatalf("the stream ended before a %s event; got %v", name, evs)
		}
		evs = append(evs, ev)
		if ev.name == name {
			return evs
		}
	}
}
