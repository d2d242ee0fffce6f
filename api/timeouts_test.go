package api_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// hangGuard bounds each read of a raw connection in these tests: not a speed
// assertion, the point where a server that never answers fails the test instead of
// hanging it.
const hangGuard = 30 * time.Second

// dial opens a raw connection to e, closed when the test ends.
func (e *env) dial(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readResponse reads one response from c (its body whole), failing past hangGuard.
func readResponse(t *testing.T, c net.Conn, rd *bufio.Reader) response {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(hangGuard))
	res, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: string(body)}
}

// wantClosed fails unless the server closes c (with nothing more to read).
func wantClosed(t *testing.T, c net.Conn, rd *bufio.Reader, why string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(hangGuard))
	if n, err := rd.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("%s: the connection is still open (read %d bytes, %v)", why, n, err)
	}
}

// TestSlowBodyIsCut: a body that does not arrive within ReadTimeout gets 408 and its
// connection closed; before, a body sent a byte now and then held its connection
// (and a goroutine) for as long as the client liked.
func TestSlowBodyIsCut(t *testing.T) {
	t.Parallel()
	e := start(t, setup{opts: api.Options{ReadTimeout: 300 * time.Millisecond}})
	c := e.dial(t)
	rd := bufio.NewReader(c)
	fmt.Fprintf(c, "POST /v1/tools/current_time/call HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"argu", strings.TrimPrefix(e.url, "http://"))
	r := readResponse(t, c, rd)
	r.want(t, http.StatusRequestTimeout, "did not arrive within 300ms")
	if code, _, _ := r.errorOf(t); code != "timeout" {
		t.Errorf("code %s, want timeout", code)
	}
	wantClosed(t, c, rd, "after a 408")

	// A body that comes in time is served as ever, the call taking longer than the
	// body's deadline included.
	e.do("POST", "/v1/tools/current_time/call", `{"arguments": {"zone": "UTC"}}`).want(t, 200, "UTC")
}

// TestUnauthorizedBeforeBody: a request without the token gets its 401 at once,
// without sending its body (net/http read what was left of an unread body, up to 256
// KiB, before it answered, so the 401 waited for the whole body); the connection
// closes after it.
func TestUnauthorizedBeforeBody(t *testing.T) {
	t.Parallel()
	// No body deadline: without the fix the 401 would never come.
	e := start(t, setup{opts: api.Options{Token: "tok-body-Qq1", ReadTimeout: -1}})
	for _, path := range []string{"/v1/tools/current_time/call", "/v1/nowhere"} {
		c := e.dial(t)
		rd := bufio.NewReader(c)
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n", path, strings.TrimPrefix(e.url, "http://"))
		r := readResponse(t, c, rd)
		r.want(t, http.StatusUnauthorized)
		wantClosed(t, c, rd, "after a 401 whose body was not read")
	}
}

// TestIdleConnectionsClose: keep-alive connections that send no further request are
// closed after IdleTimeout (they stayed open for good: 1,000 of them held 1,000
// goroutines).
func TestIdleConnectionsClose(t *testing.T) {
	t.Parallel()
	e := start(t, setup{opts: api.Options{IdleTimeout: 200 * time.Millisecond}})
	conns := make([]net.Conn, 20)
	readers := make([]*bufio.Reader, len(conns))
	for i := range conns {
		conns[i] = e.dial(t)
		readers[i] = bufio.NewReader(conns[i])
		fmt.Fprintf(conns[i], "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", strings.TrimPrefix(e.url, "http://"))
		readResponse(t, conns[i], readers[i]).want(t, 200, "alive")
	}
	// One guard for all of them: the server closes them all, or the test fails once.
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(hangGuard))
	}
	for i, c := range conns {
		if n, err := readers[i].Read(make([]byte, 1)); err != io.EOF {
			t.Fatalf("idle connection %d: still open (read %d bytes, %v)", i, n, err)
		}
		c.Close()
	}
}

// TestStreamsOutliveWriteTimeout: the write deadline bounds sending a response once it
// begins, not how long a request takes, and never an event stream: /v1/events, a
// streamed turn, a tool call and an MCP client's calls all run well past read and
// write timeouts of 300 ms.
func TestStreamsOutliveWriteTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	e := start(t, setup{
		servers: []config.Server{clockServer(t), testserver.Stdio(t, "ts")},
		opts:    api.Options{ReadTimeout: timeout, WriteTimeout: timeout},
		model:   true,
		gateway: true,
	})

	// The event stream: keep-alive comments every 50 ms, for ten times the timeout.
	api.SetEventsHeartbeat(e.srv, 50*time.Millisecond)
	s := e.watch()
	s.until(t, "snapshot")
	start := time.Now()
	for time.Since(start) < 10*timeout {
		if _, err := s.rd.ReadString('\n'); err != nil {
			t.Fatalf("/v1/events cut after %s: %v", time.Since(start), err)
		}
	}

	// A call that takes longer than either timeout before its answer begins.
	e.do("POST", "/v1/tools/sleep/call", `{"arguments": {"ms": 1000}}`).want(t, 200, "slept")

	// A streamed turn whose tool runs past the timeouts between two events.
	id := newSession(t, e, nil)
	st, r := e.openStream("/v1/sessions/"+id+"/messages", map[string]string{"content": `call sleep {"ms": 1000}`})
	if st == nil {
		t.Fatalf("no stream: %d %s", r.status, r)
	}
	st.until(t, "done")

	// An MCP client at /mcp: its GET stream stays open and a call answered as a
	// stream outlives the timeouts.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "timeouts", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: e.url + "/mcp", HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	for range 2 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 1000}})
		if err != nil || res.IsError {
			t.Fatalf("call through /mcp past the timeouts: %v %+v", err, res)
		}
	}
}
