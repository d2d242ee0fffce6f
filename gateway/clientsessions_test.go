package gateway_test

//lint:file-ignore SA1019 logging is deprecated in the 2026-07-28 protocol but lives in the versions clients use today; a proxy forwards it.

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// stateServer is an SDK server on loopback HTTP that records what its client asks
// of its state: "subscribe URI", "unsubscribe URI", "level LEVEL".
type stateServer struct {
	url string

	mu     sync.Mutex
	events []string
	seen   int // events already matched by await
}

const watchedURI = "test://watched"

func startStateServer(t *testing.T) *stateServer {
	t.Helper()
	st := &stateServer{}
	record := func(e string) {
		st.mu.Lock()
		st.events = append(st.events, e)
		st.mu.Unlock()
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "state", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{
			Logging:   &mcp.LoggingCapabilities{},
			Resources: &mcp.ResourceCapabilities{Subscribe: true},
			Tools:     &mcp.ToolCapabilities{},
		},
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			record("subscribe " + req.Params.URI)
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *mcp.UnsubscribeRequest) error {
			record("unsubscribe " + req.Params.URI)
			return nil
		},
	})
	s.AddResource(&mcp.Resource{URI: watchedURI, Name: "watched"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: watchedURI, Text: "still here"}}}, nil
	})
	type echoIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && method == "logging/setLevel" {
				record("level " + string(p.Level))
			}
			return next(ctx, method, req)
		}
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close) // after the hub's cleanup, which closes its connections
	st.url = srv.URL
	return st
}

// await waits until the events after those matched before include want, in order,
// and fails listing them if they do not within 10 s.
func (st *stateServer) await(t *testing.T, want ...string) {
	t.Helper()
	match := func() ([]string, bool) {
		st.mu.Lock()
		defer st.mu.Unlock()
		got, i := st.events[st.seen:], 0
		for j, e := range got {
			if i < len(want) && e == want[i] {
				if i++; i == len(want) {
					st.seen += j + 1
					return nil, true
				}
			}
		}
		return slices.Clone(got), false
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, ok := match()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("server saw %q; want %q in that order", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// all are every event so far.
func (st *stateServer) all() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return slices.Clone(st.events)
}

// since are the events after those matched by await.
func (st *stateServer) since() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return slices.Clone(st.events[st.seen:])
}

// stateGateway is a hub on the state server and a gateway in front of it on
// loopback HTTP.
func stateGateway(t *testing.T, st *stateServer, opts *gateway.HTTPOptions) (*gateway.Gateway, string) {
	t.Helper()
	srv := config.Server{Name: "state", Transport: config.HTTP, URL: st.url + "/mcp", InitTimeout: 10 * time.Second, ToolTimeout: 10 * time.Second}
	_, g, url := proxyGateway(t, proxyOpts{http: opts}, srv)
	return g, url
}

// stateClient connects a client of the 2025-11-25 protocol (the one with
// logging/setLevel) through transport.
func stateClient(t *testing.T, transport *mcp.StreamableClientTransport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "state-client", Version: "1"}, nil)
	cs, err := c.Connect(ctx15(t), transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A client's subscriptions and log level end with its session: the server keeps a
// subscription while another client holds it (whether the first lets go by
// unsubscribing or by leaving) and ends it with the last holder, and the log level
// asked of it follows the clients that remain.
func TestClientStateEndsWithItsSession(t *testing.T) {
	t.Parallel()
	st := startStateServer(t)
	_, url := stateGateway(t, st, nil)
	a := stateClient(t, &mcp.StreamableClientTransport{Endpoint: url})
	b := stateClient(t, &mcp.StreamableClientTransport{Endpoint: url})

	ctx := ctx15(t)
	for _, step := range []func() error{
		func() error { return a.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}) },
		func() error { return a.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI}) },
		func() error { return b.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}) },
		func() error { return b.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI}) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	st.await(t, "level error", "subscribe "+watchedURI, "level debug")

	// b lets go of the subscription a still holds: the server keeps it.
	if err := b.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: watchedURI}); err != nil {
		t.Fatal(err)
	}
	b.Close() // the more verbose client leaves
	st.await(t, "level error")
	if got := st.since(); len(got) > 0 {
		t.Errorf("after the level, the server saw %q", got)
	}
	if slices.Contains(st.all(), "unsubscribe "+watchedURI) {
		t.Errorf("the subscription ended while a client held it: %q", st.all())
	}

	// The last holder unsubscribes: the subscription ends. It subscribes again and
	// leaves: the subscription ends with it.
	if err := a.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: watchedURI}); err != nil {
		t.Fatal(err)
	}
	st.await(t, "unsubscribe "+watchedURI)
	if err := a.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI}); err != nil {
		t.Fatal(err)
	}
	st.await(t, "subscribe "+watchedURI)
	a.Close()
	st.await(t, "unsubscribe "+watchedURI)
}

// refuseDelete is an HTTP transport that never delivers a DELETE: its client ends
// without closing its session, like a client that was killed.
type refuseDelete struct{}

func (refuseDelete) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodDelete {
		return nil, errors.New("gone")
	}
	return http.DefaultTransport.RoundTrip(r)
}

// A session with none of its requests under way is closed after
// HTTPOptions.SessionTimeout: a client gone without a DELETE loses its session and
// its subscription, one that comes back after the timeout finds its session
// missing (and must initialize anew), and one that listens on its GET stream keeps
// its session however quiet it is.
func TestIdleSessionsAreClosed(t *testing.T) {
	t.Parallel()
	// Long enough that a loaded machine opens the listening client's GET stream
	// well within it after its initialization.
	const timeout = 2 * time.Second
	st := startStateServer(t)
	g, url := stateGateway(t, st, &gateway.HTTPOptions{SessionTimeout: timeout})
	listening := stateClient(t, &mcp.StreamableClientTransport{Endpoint: url})
	quietOne := stateClient(t, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true})
	gone := stateClient(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: refuseDelete{}}})

	if err := gone.Subscribe(ctx15(t), &mcp.SubscribeParams{URI: watchedURI}); err != nil {
		t.Fatal(err)
	}
	st.await(t, "subscribe "+watchedURI)
	gone.Close() // its stream ends; its DELETE never arrives
	st.await(t, "unsubscribe "+watchedURI)

	// The listening client's last request came before the others', so by the time
	// theirs have been closed it too has been quiet for longer than the timeout.
	deadline := time.Now().Add(5 * timeout)
	for ids := sessionIDs(g); len(ids) != 1 || ids[0] != listening.ID(); ids = sessionIDs(g) {
		if time.Now().After(deadline) {
			t.Fatalf("sessions %q; want only the listening client's, %q (the quiet one's is %q)", ids, listening.ID(), quietOne.ID())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got, isErr := callText(t, listening, "echo", map[string]any{"text": "still here"}); isErr || got != "still here" {
		t.Errorf("listening client's call: %q (error %v)", got, isErr)
	}
	_, err := quietOne.CallTool(ctx15(t), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "back"}})
	if !errors.Is(err, mcp.ErrSessionMissing) {
		t.Errorf("quiet client's call after the timeout: %v; want its session missing", err)
	}
}

// sessionIDs are the IDs of the gateway's client sessions.
func sessionIDs(g *gateway.Gateway) []string {
	var ids []string
	for ss := range g.Server().Sessions() {
		ids = append(ids, ss.ID())
	}
	return ids
}

// A session is known to the idle tracker before its ID reaches the client. Here the
// client has its initialize response while the gateway's handler is held for half a
// second more; it opens its GET stream meanwhile, which keeps its quiet session
// alive past the timeout. (Added once the handler had returned, the session was
// unknown when the stream came, the stream went uncounted, and the session expired
// under its listening client.)
func TestSessionKnownBeforeItsIDGoesOut(t *testing.T) {
	t.Parallel()
	const timeout = time.Second
	g, _ := stateGateway(t, startStateServer(t), nil)
	hs := httptest.NewServer(holdAfterInitialize{g.Handler(&gateway.HTTPOptions{SessionTimeout: timeout})})
	t.Cleanup(hs.Close)
	listening := stateClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp"})
	// A quiet client that came after it: once its session is closed for being idle,
	// the listening one's would have been too, had its stream gone uncounted.
	quiet := stateClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", DisableStandaloneSSE: true})
	testenv.WaitFor(t, "the quiet client's session closed", 30*timeout, func() bool {
		return !slices.Contains(sessionIDs(g), quiet.ID())
	})
	if ids := sessionIDs(g); !slices.Contains(ids, listening.ID()) {
		t.Errorf("sessions %q once the quiet client's expired; the listening client's %q was closed", ids, listening.ID())
	}
}

// holdAfterInitialize holds the handler of an initialize request for half a second
// once its response has gone out.
type holdAfterInitialize struct{ next http.Handler }

func (h holdAfterInitialize) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Mcp-Session-Id") == "" {
		w = holdingWriter{w}
	}
	h.next.ServeHTTP(w, r)
}

type holdingWriter struct{ http.ResponseWriter }

func (h holdingWriter) Write(p []byte) (int, error) {
	n, err := h.ResponseWriter.Write(p)
	if bytes.Contains(p, []byte(`"serverInfo"`)) {
		_ = http.NewResponseController(h.ResponseWriter).Flush()
		time.Sleep(500 * time.Millisecond)
	}
	return n, err
}

func (h holdingWriter) Unwrap() http.ResponseWriter { return h.ResponseWriter }
