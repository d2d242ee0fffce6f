package host_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/fakeidp"
)

// TestAPIAuth: host.API over a config with "serve": {"auth"} takes that provider's
// tokens (its admins too) and no others, and points MCP hosts at it; a provider that
// cannot be reached is an error naming its issuer. With "clientId" the dashboard
// learns where to sign its person in (GET /v1/dashboard/signin, no token).
func TestAPIAuth(t *testing.T) {
	idp, err := fakeidp.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idp.Close() })
	cfg := &config.Config{Settings: config.Settings{Serve: config.ServeSettings{Auth: &config.AuthSettings{
		Issuer: idp.Issuer, Audience: "switchboard", AdminClaim: "groups=sb-admins", ClientID: "dash",
	}}}}
	h := host.New(cfg, &host.Options{Sessions: &config.SessionSettings{Store: "memory"}})
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := h.API(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := serveAPI(t, srv)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	get := func(path, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, c := range []struct {
		path, token string
		status      int
		says        string
	}{
		{"/v1/me", "", 401, "no bearer token"},
		{"/v1/me", idp.Mint(map[string]any{"aud": "other"}), 401, "another service"},
		{"/v1/me", idp.Mint(map[string]any{"sub": "bob"}), 200, `"admin": false`},
		{"/v1/me", idp.Mint(map[string]any{"sub": "erin", "groups": []string{"sb-admins"}}), 200, `"admin": true`},
		{"/.well-known/oauth-protected-resource", "", 200, idp.Issuer},
		{"/v1/dashboard/signin", "", 200, `"clientId": "dash"`},
		{"/v1/dashboard/signin", "", 200, `"issuer": "` + idp.Issuer + `"`},
	} {
		if code, body := get(c.path, c.token); code != c.status || !strings.Contains(body, c.says) {
			t.Errorf("GET %s = %d %s, want %d saying %q", c.path, code, body, c.status, c.says)
		}
	}

	gone, err := fakeidp.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	gone.Close()
	cfg2 := &config.Config{Settings: config.Settings{Serve: config.ServeSettings{Auth: &config.AuthSettings{Issuer: gone.Issuer, Audience: "switchboard"}}}}
	h2 := host.New(cfg2, &host.Options{Sessions: &config.SessionSettings{Store: "memory"}})
	t.Cleanup(func() { h2.Close() })
	if _, err := h2.API(ctx, nil); err == nil || !strings.Contains(err.Error(), gone.Issuer) {
		t.Errorf("API with an unreachable provider = %v, want an error naming %s", err, gone.Issuer)
	}
}
