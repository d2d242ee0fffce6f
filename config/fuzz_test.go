package config

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzLoad checks Parse's contract on arbitrary input: no panics, exactly one of a
// config or a non-empty Errors, sane servers, and no env value in any message.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		`{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}"]}}}`,
		`{"servers": {"gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${input:token}"}}}, "inputs": [{"id": "token", "type": "promptString"}]}`,
		`{"services": {"old": {"command": "old", "enabled": false}}}`,
		`{"a": {"url": "http://localhost:3000/sse"}, "switchboard": {"naming": "always", "heartbeat": 10}, "$schema": "x"}`,
		"// comment\n{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"x\",}, /* block */\n  },\n}\n",
		`{"mcpServers": {"a": {"command": "a"}}, "servers": {"a": {"command": "b"}}}`,
		`{"servers": {"x": {"command": "c", "url": "https://h", "type": "websocket", "timeout": "abc", "args": [1, true]}}}`,
		`{"servers": {"x": {"env": {"A": null, "B": 1, "C": "${UNSET:-d}${env:X}"}, "command": "${X}"}}}`,
		`{"servers": {"x": {"url": "${X}", "tools": {"allow": ["[bad"], "deny": ["*"]}, "prefix": "bad prefix!"}}}`,
		`{"servers": {"x": {"command": "c", "disabled": true, "enabled": true, "heartbeat": -1, "toolTimeout": 1e300}}}`,
		`{"mcpServers": {"switchboard": {"command": "switchboard"}, "": {"command": "x"}}}`,
		`{"switchboard": {"naming": "bogus", "future": [1,2,]}, "globalShortcut": "x"}`,
		`[1, 2, 3]`,
		`{"a": tru}`,
		`{"a": {"command": "x"`,
		``,
		`{}`,
	} {
		f.Add([]byte(seed))
	}
	const sentinel = "s3cr3t-SENTINEL"
	opts := &Options{LookupEnv: func(string) (string, bool) { return sentinel, true }}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, "fuzz.json", opts)
		// A config can only quote the sentinel if the input itself contains it.
		checkLeak := !bytes.Contains(data, []byte(sentinel))
		if err != nil {
			if cfg != nil {
				t.Fatalf("got both a config and an error: %v", err)
			}
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error %T %v is not a non-empty Errors", err, err)
			}
			for _, e := range es {
				if e == nil || e.Msg == "" {
					t.Fatalf("bad error entry %#v", e)
				}
			}
			if checkLeak && strings.Contains(err.Error(), sentinel) {
				t.Fatalf("error leaks an env value: %v", err)
			}
			return
		}
		if cfg == nil {
			t.Fatal("got neither a config nor an error")
		}
		for _, s := range cfg.Servers {
			if s.Name == "" {
				t.Fatalf("server with an empty name: %+v", s)
			}
			switch s.Transport {
			case Stdio, HTTP, SSE:
			default:
				t.Fatalf("server %q has transport %q", s.Name, s.Transport)
			}
		}
		for _, w := range cfg.Warnings {
			if checkLeak && strings.Contains(w, sentinel) {
				t.Fatalf("warning leaks an env value: %q", w)
			}
		}
	})
}
