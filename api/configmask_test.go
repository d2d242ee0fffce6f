package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/api"
)

// TestServerConfigMasksURLAndOAuth: GET /v1/servers/{name}/config masks a url's
// password and its secret-looking query parameters, and "oauth"'s clientSecret, as
// it masks env and headers (before, it showed them as the file has them); the
// entry sent back as shown keeps the stored secrets, and a masked secret is never
// given back to another host.
func TestServerConfigMasksURLAndOAuth(t *testing.T) {
	t.Parallel()
	e, path := startFileHost(t, api.Options{})
	secrets := []string{"hunter2", "k-secret-1", "sig-secret-3", "cs-secret-2"}
	e.do("POST", "/v1/servers", map[string]any{"name": "remote", "disabled": true,
		"url":   "https://bob:hunter2@mcp.example.com/mcp?api_key=k-secret-1&page=2&X-Amz-Signature=sig-secret-3&token=${REMOTE_TOKEN}",
		"oauth": map[string]any{"clientId": "app", "clientSecret": "cs-secret-2"}}).want(t, http.StatusCreated)

	r := e.do("GET", "/v1/servers/remote/config", nil)
	r.want(t, http.StatusOK, `"clientSecret": "********"`, `"clientId": "app"`)
	for _, s := range secrets {
		if strings.Contains(r.body, s) {
			t.Errorf("the config shows the secret %q: %s", s, r.body)
		}
	}
	var shown struct {
		Config map[string]any `json:"config"`
	}
	r.decode(t, &shown)
	if got, want := shown.Config["url"], "https://bob:********@mcp.example.com/mcp?api_key=********&page=2&X-Amz-Signature=********&token=${REMOTE_TOKEN}"; got != want {
		t.Errorf("url shown\n %s\nwant %s", got, want)
	}

	// The entry sent back as shown, with a change: the file keeps its secrets.
	shown.Config["description"] = "edited"
	e.do("PATCH", "/v1/servers/remote", shown.Config).want(t, http.StatusOK)
	file := fileText(t, path)
	for _, s := range append(secrets, `"description": "edited"`) {
		if !strings.Contains(file, s) {
			t.Errorf("the file lost %q after the masked entry came back:\n%s", s, file)
		}
	}
	if strings.Contains(file, "********") {
		t.Errorf("the file has a mask in it:\n%s", file)
	}

	// A masked secret on another host is refused: it would carry the stored secret there.
	r = e.do("PATCH", "/v1/servers/remote", `{"url": "https://collector.example.net/mcp?api_key=********"}`)
	r.want(t, http.StatusBadRequest, "own host only")
	var body struct {
		Error struct {
			Field string `json:"field"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(r.body), &body); body.Error.Field != "url" {
		t.Errorf("field %q, want url: %s", body.Error.Field, r.body)
	}
	if got := fileText(t, path); got != file {
		t.Errorf("a refused patch changed the file:\n%s", got)
	}
}
