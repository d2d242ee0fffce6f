package host_test

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// TestFlagChecks: the checks a command line makes of its flags through host answer
// as the packages they come from: loopback addresses, public URLs, issuers and
// provider names.
func TestFlagChecks(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:8080": true, "localhost:0": true, "[::1]:80": true, "0.0.0.0:8080": false, ":8080": false} {
		if got := host.IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
	if err := host.CheckPublicURL("https://switchboard.example.com"); err != nil {
		t.Errorf("CheckPublicURL(https): %v", err)
	}
	if err := host.CheckPublicURL("ftp://switchboard.example.com"); err == nil {
		t.Error("CheckPublicURL took an ftp URL")
	}
	if err := host.CheckIssuer("https://idp.example.com"); err != nil {
		t.Errorf("CheckIssuer(https): %v", err)
	}
	if err := host.CheckIssuer("http://idp.example.com"); err == nil {
		t.Error("CheckIssuer took http on a host that is not loopback")
	}
	if p, err := host.ParseProvider("Responses"); err != nil || p != host.OpenAIResponses {
		t.Errorf("ParseProvider(Responses) = %q, %v; want %q", p, err, host.OpenAIResponses)
	}
	if _, err := host.ParseProvider("gemini"); err == nil {
		t.Error("ParseProvider took gemini")
	}
	if host.MaxSearchLimit < host.DefaultRegexLimit || host.DefaultRegexLimit < 1 || host.DefaultSearchLimit < 1 {
		t.Errorf("search limits: default %d, regex %d, max %d", host.DefaultSearchLimit, host.DefaultRegexLimit, host.MaxSearchLimit)
	}
}

// TestTerminalSignIn: a sign-in at a terminal writes where it is told and opens no
// browser when told not to; Switchboard signs in to an HTTP server without an
// Authorization header, and never to a stdio one.
func TestTerminalSignIn(t *testing.T) {
	var out strings.Builder
	l := host.Loopback("notes", &out, false)
	if l.Server != "notes" || l.Out != &out || l.Browser != nil {
		t.Errorf("Loopback without a browser: %+v", l)
	}
	if !host.SignsIn(config.Server{Name: "notes", Transport: config.HTTP, URL: "https://notes.example.com/mcp"}) {
		t.Error("SignsIn: not to an HTTP server without headers")
	}
	if host.SignsIn(config.Server{Name: "local", Transport: config.Stdio, Command: "notes"}) {
		t.Error("SignsIn: to a stdio server")
	}
}
