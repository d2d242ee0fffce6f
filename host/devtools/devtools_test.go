package devtools_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/host/devtools"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// TestNewFakeModel: each wire format is served at the base URL its SDK is given
// (OpenAI's under /v1), answering with the echo rule; another provider is an
// *UnknownProviderError, and nothing listens.
func TestNewFakeModel(t *testing.T) {
	for _, c := range []struct{ provider, path, body string }{
		{"openai", "/chat/completions", `{"model": "m", "messages": [{"role": "user", "content": "hello"}]}`},
		{"anthropic", "/v1/messages", `{"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hello"}]}`},
	} {
		m, err := devtools.NewFakeModel(c.provider, "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequest(http.MethodPost, m.URL+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("anthropic-version", "2023-06-01")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		m.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(b), "You said: hello") {
			t.Errorf("%s at %s: %d %s", c.provider, m.URL+c.path, res.StatusCode, b)
		}
	}
	_, err := devtools.NewFakeModel("gemini", "127.0.0.1:0")
	var unknown *devtools.UnknownProviderError
	if !errors.As(err, &unknown) || unknown.Provider != "gemini" {
		t.Errorf("gemini: %v; want an *UnknownProviderError", err)
	}
}

// TestStartIdP: the provider serves its discovery at its issuer, and a token of
// each of its people.
func TestStartIdP(t *testing.T) {
	idp, err := devtools.StartIdP(&devtools.IdPOptions{People: []devtools.IdPPerson{{Name: "ada", Groups: []string{"admins"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer idp.Close()
	for _, path := range []string{"/.well-known/openid-configuration", "/people/ada/token"} {
		res, err := http.Get(idp.Issuer + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", path, res.StatusCode)
		}
	}
}

// TestRunDemoUnknown: a name that is none of the demo servers is an error, before
// anything is served on stdio.
func TestRunDemoUnknown(t *testing.T) {
	if err := devtools.RunDemo(context.Background(), "nope", ""); err == nil {
		t.Error("RunDemo(nope): no error")
	}
}
