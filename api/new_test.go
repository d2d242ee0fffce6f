package api_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestNew: New takes the hub it serves as its argument and the rest as *Options,
// nil meaning the defaults: no token (the tools answer as they are), no model (a
// chat completion is 503 saying how to configure one), no sessions (503); a nil hub
// is an error that says what to give.
func TestNew(t *testing.T) {
	t.Parallel()
	if _, err := api.New(nil, nil); err == nil || !strings.Contains(err.Error(), "api: New: the hub is nil") {
		t.Errorf("api.New(nil, nil) = %v, want an error naming the hub", err)
	}

	h := hub.New(&config.Config{Source: "<test>", Servers: []config.Server{clockServer(t)}}, &hub.Options{Upstream: testserver.Fast()})
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv, err := api.New(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	base := "http://" + ln.Addr().String()
	for _, c := range []struct {
		method, path string
		status       int
		want         string
	}{
		{"GET", "/v1/tools", 200, `"convert_time"`},
		{"POST", "/v1/sessions", 503, "this server keeps no sessions"},
		{"POST", "/v1/chat/completions", 503, "no model configured"},
	} {
		req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status || !strings.Contains(string(body), c.want) {
			t.Errorf("%s %s: %d %s, want %d with %s", c.method, c.path, res.StatusCode, body, c.status, c.want)
		}
	}
}
