package host_test

import (
	"context"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestServeAPI: ServeAPI answers on its listener before the servers have started
// and after; Shutdown ends it cleanly (nil, Done closed); a listener that fails ends
// serving at once (Done), and Shutdown then says why.
func TestServeAPI(t *testing.T) {
	cfg := &config.Config{Servers: []config.Server{testserver.Stdio(t, "ts")}}
	cfg.Settings.Sessions.Store = "memory"
	h := host.New(cfg, nil)
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := h.ServeAPI(ctx, ln, &api.Options{Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	health := func() int {
		t.Helper()
		res, err := http.Get("http://" + ln.Addr().String() + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := health(); code != http.StatusOK {
		t.Errorf("/healthz before the start: %d", code)
	}
	if err := h.StartShared(ctx); err != nil {
		t.Fatal(err)
	}
	if code := health(); code != http.StatusOK {
		t.Errorf("/healthz after the start: %d", code)
	}
	if err := srv.Shutdown(time.Second); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	select {
	case <-srv.Done():
	default:
		t.Error("Done is open after Shutdown")
	}

	// A listener that fails.
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv2, err := h.ServeAPI(ctx, ln2, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln2.Close()
	select {
	case <-srv2.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("serving went on after its listener closed")
	}
	if err := srv2.Shutdown(time.Second); err == nil {
		t.Error("Shutdown after the listener failed: nil, want its error")
	}
}

// TestServeAuth: the command line's provider over the config's keeps the config's
// admins; without one, the config's; without either, none.
func TestServeAuth(t *testing.T) {
	cfg := &config.Config{}
	h := host.New(cfg, nil)
	t.Cleanup(func() { h.Close() })
	if a := h.ServeAuth("", ""); a != nil {
		t.Errorf("no provider anywhere: %+v", a)
	}
	if a := h.ServeAuth("https://idp.example", "sb"); a == nil || a.Issuer != "https://idp.example" || a.Audience != "sb" {
		t.Errorf("the flags' provider: %+v", a)
	}
	cfg.Settings.Serve.Auth = &config.AuthSettings{Issuer: "https://cfg.example", Audience: "cfg", Admins: []string{"ann"}}
	if a := h.ServeAuth("", ""); a != cfg.Settings.Serve.Auth {
		t.Errorf("the config's provider: %+v", a)
	}
	a := h.ServeAuth("https://idp.example", "sb")
	if a.Issuer != "https://idp.example" || a.Audience != "sb" || !slices.Equal(a.Admins, []string{"ann"}) {
		t.Errorf("the flags over the config's: %+v", a)
	}
	if cfg.Settings.Serve.Auth.Issuer != "https://cfg.example" {
		t.Error("ServeAuth changed the config's provider")
	}
}
