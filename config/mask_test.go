package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestMaskURL: a url's credentials are masked, its references and the rest shown
// as written.
func TestMaskURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp"},
		{"https://bob:hunter2@mcp.example.com/mcp", "https://bob:********@mcp.example.com/mcp"},
		{"https://bob:${PASS}@mcp.example.com/mcp", "https://bob:${PASS}@mcp.example.com/mcp"},
		{"https://bob:${PASS:-hunter2}@h/", "https://bob:********@h/"},
		{"https://ghp_abc123@h/mcp", "https://********@h/mcp"},
		{"https://${TOKEN}@h/mcp", "https://${TOKEN}@h/mcp"},
		{"https://bob:@h/", "https://bob:@h/"},
		{"https://h/mcp?api_key=k1&x=1&token=t1#frag", "https://h/mcp?api_key=********&x=1&token=********#frag"},
		{"https://h/?API_KEY=k&apikey=k&access_token=k&key=k&secret=k&sig=k&signature=k&password=k&auth=k&client_secret=k",
			"https://h/?API_KEY=********&apikey=********&access_token=********&key=********&secret=********&sig=********&signature=********&password=********&auth=********&client_secret=********"},
		{"https://h/?x-api-key=k&X-Amz-Signature=k&accessToken=k&accessKey=k&x%2Dapi%2Dkey=k", "https://h/?x-api-key=********&X-Amz-Signature=********&accessToken=********&accessKey=********&x%2Dapi%2Dkey=********"},
		{"https://h/?monkey=1&author=me&page=2&keyword=", "https://h/?monkey=1&author=me&page=2&keyword="},
		{"https://h/?token=${TOKEN}&key=", "https://h/?token=${TOKEN}&key="},
		{"https://u:p@h/a@b?sig=s", "https://u:********@h/a@b?sig=********"},
		{"${MCP_URL}", "${MCP_URL}"},
	}
	for _, c := range cases {
		if got := MaskURL(c.in); got != c.want {
			t.Errorf("MaskURL(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// TestMaskEntrySecrets: the url's credentials and oauth's clientSecret are masked
// as env and headers are, unless references.
func TestMaskEntrySecrets(t *testing.T) {
	e := json.RawMessage(`{"url":"https://bob:hunter2@h/mcp?api_key=k1&page=2","oauth":{"clientId":"app","clientSecret":"cs-123"},"headers":{"X":"${X}"}}`)
	want := `{"url":"https://bob:********@h/mcp?api_key=********&page=2","oauth":{"clientId":"app","clientSecret":"********"},"headers":{"X":"${X}"}}`
	if got := string(MaskEntry(e)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	ref := `{"url":"https://h/mcp?token=${T}","oauth":{"clientId":"app","clientSecret":"${CS}"}}`
	if got := string(MaskEntry(json.RawMessage(ref))); got != ref {
		t.Errorf("references: got %s", got)
	}
}

// TestWithoutMaskedSecrets: a patch that sends back the masked url and clientSecret
// keeps the stored ones; a url changed elsewhere gets its masked secrets back from
// the stored url, for the same host only.
func TestWithoutMaskedSecrets(t *testing.T) {
	stored := json.RawMessage(`{"url":"https://bob:hunter2@h.example/mcp?api_key=k1&key=k2&key=k3","oauth":{"clientId":"app","clientSecret":"cs-123"}}`)
	compact := func(p json.RawMessage) string {
		var b bytes.Buffer
		if err := json.Compact(&b, p); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	cases := []struct{ patch, want, err string }{
		{string(MaskEntry(stored)), `{"oauth":{"clientId":"app"}}`, ""},
		{`{"url":"https://bob:********@h.example/v2?api_key=********&key=********&key=new&page=1"}`,
			`{"url":"https://bob:hunter2@h.example/v2?api_key=k1&key=k2&key=new&page=1"}`, ""},
		{`{"url":"https://bob:new@h.example/mcp?key=********&key=********"}`, `{"url":"https://bob:new@h.example/mcp?key=k2&key=k3"}`, ""},
		{`{"url":"https://evil.example/mcp?api_key=********"}`, "", "goes to its own host only"},
		{`{"url":"https://bob:********@evil.example/mcp"}`, "", "goes to its own host only"},
		{`{"url":"https://h.example/mcp?token=********"}`, "", `"token"`},
		{`{"url":"https://h.example/mcp?key=********&key=********&key=********"}`, "", `"key"`},
		{`{"oauth":{"clientSecret":"new-secret"}}`, `{"oauth":{"clientSecret":"new-secret"}}`, ""},
	}
	for _, c := range cases {
		got, err := WithoutMasked(json.RawMessage(c.patch), stored)
		switch {
		case c.err != "":
			var ce *Error
			if !errors.As(err, &ce) || ce.Path != "url" || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want an *Error at url saying %s", c.patch, err, c.err)
			}
			if err != nil && strings.Contains(err.Error(), "k1") || err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("%s: the error tells the secret: %v", c.patch, err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.patch, err)
		case compact(got) != c.want:
			t.Errorf("%s\n got %s\nwant %s", c.patch, compact(got), c.want)
		}
	}
}
