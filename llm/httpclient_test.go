package llm_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/llm"
)

// TestNewHTTPClientBoundsHeaders: a server that takes the request and never answers
// fails it once the bound has passed, instead of hanging it.
func TestNewHTTPClientBoundsHeaders(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	client := llm.NewHTTPClient(200 * time.Millisecond)
	t.Cleanup(client.CloseIdleConnections)
	done := make(chan error, 1)
	go func() {
		res, err := client.Post(srv.URL, "application/json", strings.NewReader(`{}`))
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "timeout awaiting response headers") {
			t.Errorf("request to a silent server: %v, want a response header timeout", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the request to a silent server still hangs after 30 s")
	}
}
