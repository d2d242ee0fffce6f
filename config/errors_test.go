package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		env  map[string]string
		want []string
	}{
		// Syntax, in encoding/json's words.
		{"syntax: missing value", "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\":\n    }\n  }\n}",
			nil, []string{"mcp.json:5:5: invalid character '}' looking for beginning of value"}},
		{"syntax: bad literal", `{"a": tru}`, nil, []string{"mcp.json:1:10: invalid character '}' in literal true (expecting 'e')"}},
		{"syntax: bad escape", `{"a": "\q"}`, nil, []string{`mcp.json:1:9: invalid character 'q' in string escape code`}},
		{"syntax: newline in string", "{\"a\": \"x\ny\"}", nil, []string{`mcp.json:1:9: invalid character '\n' in string literal`}},
		{"syntax: missing comma", `{"a": 1 2}`, nil, []string{"mcp.json:1:9: invalid character '2' after object key:value pair"}},
		{"syntax: missing colon", `{"a" 1}`, nil, []string{"mcp.json:1:6: invalid character '1' after object key"}},
		{"syntax: bad key", `{1: 2}`, nil, []string{"mcp.json:1:2: invalid character '1' looking for beginning of object key string"}},
		{"syntax: array element", `[1, 2 3]`, nil, []string{"mcp.json:1:7: invalid character '3' after array element"}},
		{"syntax: trailing data", `{} x`, nil, []string{"mcp.json:1:4: invalid character 'x' after top-level value"}},
		{"syntax: empty", ``, nil, []string{"mcp.json:1:1: unexpected end of JSON input"}},
		{"syntax: truncated", `{"a": {"command": "x"`, nil, []string{"mcp.json:1:22: unexpected end of JSON input"}},
		{"syntax: unterminated string", `{"a": "x`, nil, []string{"mcp.json:1:9: unexpected end of JSON input"}},
		{"syntax: unterminated comment", "{} /* x", nil, []string{"mcp.json:1:4: unterminated comment"}},

		// Top level.
		{"top level array", `[1]`, nil, []string{"mcp.json:1:1: top level must be an object"}},
		{"top level string after comment", "// hi\n  \"x\"", nil, []string{"mcp.json:2:3: top level must be an object"}},
		{"group not an object", `{"mcpServers": []}`, nil, []string{"mcp.json:1:16: mcpServers: want an object of servers"}},
		{"entry not an object", `{"mcpServers": {"a": "npx"}}`, nil, []string{"mcp.json:1:22: mcpServers.a: want an object"}},
		{"bare non-object", `{"a": {"command": "c"}, "b": 1}`, nil, []string{"mcp.json:1:30: b: want an object (a server entry)"}},
		{"inputs not an array", `{"servers": {}, "inputs": {}}`, nil, []string{"mcp.json:1:27: inputs: want an array"}},
		{"duplicate top-level key", `{"servers": {}, "servers": {}}`, nil, []string{"mcp.json:1:17: servers: duplicate key (first at 1:2)"}},

		// Settings.
		{"settings not an object", `{"switchboard": 1}`, nil, []string{"mcp.json:1:17: switchboard: want an object"}},
		{"settings naming", `{"switchboard": {"naming": "sometimes"}}`, nil,
			[]string{`mcp.json:1:28: switchboard.naming: unknown naming "sometimes" (want auto, never or always)`}},
		{"settings naming type", `{"switchboard": {"naming": 1}}`, nil, []string{`mcp.json:1:28: switchboard.naming: want a string`}},
		{"settings heartbeat", `{"switchboard": {"heartbeat": "soon"}}`, nil, []string{`mcp.json:1:31: switchboard.heartbeat: "soon" is not a duration`}},
		{"settings maxArgumentDepth", `{"switchboard": {"maxArgumentDepth": 0}}`, nil,
			[]string{`mcp.json:1:38: switchboard.maxArgumentDepth: want a whole number of at least 1`}},

		// Names.
		{"empty name", `{"servers": {"": {"command": "c"}}}`, nil, []string{"mcp.json:1:14: servers: empty server name"}},
		{"empty name bare", `{"": {"command": "c"}}`, nil, []string{"mcp.json:1:2: empty server name"}},
		{"duplicate across groups", `{"mcpServers": {"a": {"command": "a"}}, "servers": {"a": {"command": "b"}}}`, nil,
			[]string{"mcp.json:1:53: servers.a: duplicate server name (also defined at mcpServers.a, 1:17)"}},
		{"duplicate in one group", `{"servers": {"a": {"command": "a"}, "a": {"command": "b"}}}`, nil,
			[]string{"mcp.json:1:37: servers.a: duplicate server name (also defined at servers.a, 1:14)"}},
		{"duplicate field", `{"servers": {"x": {"command": "a", "command": "b"}}}`, nil,
			[]string{"mcp.json:1:36: servers.x.command: duplicate key (first at 1:20)"}},

		// Command, url, transport.
		{"neither", `{"servers": {"x": {}}}`, nil, []string{`mcp.json:1:19: servers.x: "command" or "url" is required`}},
		{"neither, empty strings", `{"servers": {"x": {"command": "", "url": ""}}}`, nil, []string{`mcp.json:1:19: servers.x: "command" or "url" is required`}},
		{"neither, bare path root", `{"x": {"args": []}}`, nil, []string{`mcp.json:1:7: x: "command" or "url" is required`}},
		{"neither, mcpServers", "{\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"npx\"},\n    \"github\":   {\"env\": {}}\n  }\n}", nil,
			[]string{`mcp.json:4:17: mcpServers.github: "command" or "url" is required`}},
		{"both", `{"servers": {"x": {"command": "c", "url": "https://h"}}}`, nil,
			[]string{`mcp.json:1:19: servers.x: "command" and "url" are mutually exclusive`}},
		{"command type", `{"servers": {"x": {"command": ["npx"]}}}`, nil, []string{`mcp.json:1:31: servers.x.command: want a string`}},
		{"command empty after expansion", `{"servers": {"x": {"command": "${C}"}}}`, map[string]string{"C": ""}, []string{`mcp.json:1:31: servers.x.command: empty after expansion`}},
		{"unknown type", `{"servers": {"x": {"type": "websocket", "url": "https://h"}}}`, nil,
			[]string{`mcp.json:1:28: servers.x.type: unknown transport "websocket" (want stdio, http or sse)`}},
		{"unknown transport alias", `{"servers": {"x": {"transport": "ws", "url": "https://h"}}}`, nil,
			[]string{`mcp.json:1:33: servers.x.transport: unknown transport "ws" (want stdio, http or sse)`}},
		{"type not a string", `{"servers": {"x": {"type": 1, "url": "https://h"}}}`, nil, []string{`mcp.json:1:28: servers.x.type: want a string`}},
		{"type and transport conflict", `{"servers": {"x": {"type": "http", "transport": "sse", "url": "https://h"}}}`, nil,
			[]string{`mcp.json:1:49: servers.x.transport: conflicts with "type"`}},
		{"stdio without command", `{"servers": {"x": {"type": "stdio", "url": "https://h"}}}`, nil,
			[]string{`mcp.json:1:28: servers.x.type: transport "stdio" needs "command"`}},
		{"sse without url", `{"servers": {"x": {"type": "sse", "command": "c"}}}`, nil,
			[]string{`mcp.json:1:28: servers.x.type: transport "sse" needs "url"`}},
		{"http without url", `{"servers": {"x": {"type": "streamable-http", "command": "c"}}}`, nil,
			[]string{`mcp.json:1:28: servers.x.type: transport "http" needs "url"`}},
		{"url missing scheme", `{"servers": {"x": {"url": "example.com/mcp"}}}`, nil,
			[]string{`mcp.json:1:27: servers.x.url: missing scheme`}},
		{"url scheme", `{"servers": {"x": {"url": "ftp://h/x"}}}`, nil, []string{`mcp.json:1:27: servers.x.url: unsupported scheme (want http or https)`}},
		{"url host", `{"servers": {"x": {"url": "http:///x"}}}`, nil, []string{`mcp.json:1:27: servers.x.url: missing host`}},
		{"url invalid", `{"servers": {"x": {"url": "http://h/%zz"}}}`, nil, []string{`mcp.json:1:27: servers.x.url: not a valid URL`}},
		{"url checked after expansion", `{"servers": {"x": {"url": "${U}/mcp"}}}`, map[string]string{"U": "example.com"},
			[]string{`mcp.json:1:27: servers.x.url: missing scheme`}},
		{"url empty after expansion", `{"servers": {"x": {"url": "${U}"}}}`, nil, []string{`mcp.json:1:27: servers.x.url: empty after expansion`}},

		// Field types.
		{"args not an array", `{"servers": {"x": {"command": "c", "args": "a b"}}}`, nil, []string{`mcp.json:1:44: servers.x.args: want an array of strings`}},
		{"args elements", `{"servers": {"x": {"command": "c", "args": ["a", 2, true]}}}`, nil,
			[]string{`mcp.json:1:50: servers.x.args[1]: want a string`, `mcp.json:1:53: servers.x.args[2]: want a string`}},
		{"env not an object", `{"servers": {"x": {"command": "c", "env": ["A"]}}}`, nil, []string{`mcp.json:1:43: servers.x.env: want an object of strings`}},
		{"env null value", `{"servers": {"x": {"command": "c", "env": {"A": null}}}}`, nil, []string{`mcp.json:1:49: servers.x.env.A: null is not a value (want a string, number or boolean; "" for empty)`}},
		{"env object value", `{"servers": {"x": {"command": "c", "env": {"A": {}}}}}`, nil, []string{`mcp.json:1:49: servers.x.env.A: want a string, number or boolean`}},
		{"env duplicate name", `{"servers": {"x": {"command": "c", "env": {"A": "1", "A": "2"}}}}`, nil,
			[]string{`mcp.json:1:54: servers.x.env.A: duplicate key (first at 1:44)`}},
		{"env bad name", `{"servers": {"x": {"command": "c", "env": {"A=B": "v"}}}}`, nil, []string{`mcp.json:1:44: servers.x.env: invalid variable name "A=B"`}},
		{"headers value", `{"servers": {"x": {"url": "https://h", "headers": {"A": 1}}}}`, nil, []string{`mcp.json:1:57: servers.x.headers.A: want a string`}},
		{"headers name", `{"servers": {"x": {"url": "https://h", "headers": {"A B": "v"}}}}`, nil, []string{`mcp.json:1:52: servers.x.headers: invalid header name "A B"`}},
		{"cwd type", `{"servers": {"x": {"command": "c", "cwd": 1}}}`, nil, []string{`mcp.json:1:43: servers.x.cwd: want a string`}},
		{"description type", `{"servers": {"x": {"command": "c", "description": false}}}`, nil, []string{`mcp.json:1:51: servers.x.description: want a string`}},
		{"disabled type", `{"servers": {"x": {"command": "c", "disabled": "yes"}}}`, nil, []string{`mcp.json:1:48: servers.x.disabled: want a boolean`}},
		{"required type", `{"servers": {"x": {"command": "c", "required": 1}}}`, nil, []string{`mcp.json:1:48: servers.x.required: want a boolean`}},
		{"inheritEnv type", `{"servers": {"x": {"command": "c", "inheritEnv": "no"}}}`, nil, []string{`mcp.json:1:50: servers.x.inheritEnv: want a boolean`}},
		{"disabled and enabled both true", `{"servers": {"x": {"command": "c", "disabled": true, "enabled": true}}}`, nil,
			[]string{`mcp.json:1:65: servers.x: "disabled" and "enabled" contradict each other`}},
		{"disabled and enabled both false", `{"servers": {"x": {"command": "c", "enabled": false, "disabled": false}}}`, nil,
			[]string{`mcp.json:1:66: servers.x: "disabled" and "enabled" contradict each other`}},

		// Durations.
		{"timeout not a duration", `{"servers": {"x": {"command": "c", "timeout": "abc"}}}`, nil, []string{`mcp.json:1:47: servers.x.timeout: "abc" is not a duration`}},
		{"timeout negative", `{"servers": {"x": {"command": "c", "timeout": -5}}}`, nil, []string{`mcp.json:1:47: servers.x.timeout: must not be negative (0 means the default)`}},
		{"timeout negative string", `{"servers": {"x": {"command": "c", "timeout": "-1s"}}}`, nil, []string{`mcp.json:1:47: servers.x.timeout: must not be negative (0 means the default)`}},
		{"timeout out of range", `{"servers": {"x": {"command": "c", "timeout": 1e300}}}`, nil, []string{`mcp.json:1:47: servers.x.timeout: 1e300 seconds is out of range`}},
		{"toolTimeout type", `{"servers": {"x": {"command": "c", "toolTimeout": true}}}`, nil,
			[]string{`mcp.json:1:51: servers.x.toolTimeout: want a duration (a number of seconds or a string like "30s")`}},
		{"heartbeat bad", `{"servers": {"x": {"command": "c", "heartbeat": "1x"}}}`, nil, []string{`mcp.json:1:49: servers.x.heartbeat: "1x" is not a duration`}},

		// Tools and prefix.
		{"tools not an object", `{"servers": {"x": {"command": "c", "tools": ["a"]}}}`, nil, []string{`mcp.json:1:45: servers.x.tools: want an object`}},
		{"tools bad glob", `{"servers": {"x": {"command": "c", "tools": {"allow": ["ok*", "[bad"]}}}}`, nil,
			[]string{`mcp.json:1:63: servers.x.tools.allow[1]: bad pattern "[bad": syntax error in pattern`}},
		{"tools deny type", `{"servers": {"x": {"command": "c", "tools": {"deny": "a*"}}}}`, nil, []string{`mcp.json:1:54: servers.x.tools.deny: want an array of strings`}},
		{"prefix chars", `{"servers": {"x": {"command": "c", "prefix": "has space"}}}`, nil,
			[]string{`mcp.json:1:46: servers.x.prefix: "has space" must be 1 to 32 letters, digits, '_' or '-'`}},
		{"prefix too long", `{"servers": {"x": {"command": "c", "prefix": "` + strings.Repeat("a", 33) + `"}}}`, nil,
			[]string{`mcp.json:1:46: servers.x.prefix: "` + strings.Repeat("a", 33) + `" must be 1 to 32 letters, digits, '_' or '-'`}},
		{"prefix empty", `{"servers": {"x": {"command": "c", "prefix": ""}}}`, nil,
			[]string{`mcp.json:1:46: servers.x.prefix: "" must be 1 to 32 letters, digits, '_' or '-'`}},
		{"protocol version unknown", `{"servers": {"x": {"command": "c", "protocolVersion": "2025-12-01"}}}`, nil,
			[]string{`mcp.json:1:55: servers.x.protocolVersion: unknown MCP version "2025-12-01" (want one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)`}},
		{"protocol version not a string", `{"servers": {"x": {"command": "c", "protocolVersion": 2025}}}`, nil,
			[]string{`mcp.json:1:55: servers.x.protocolVersion: want a string`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseErrs(t, tt.src, tt.env)
			if !slices.Equal(got, tt.want) {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestAllProblemsAtOnce checks that one bad server doesn't hide the next one.
func TestAllProblemsAtOnce(t *testing.T) {
	src := `{
  "mcpServers": {
    "github": {"env": {"TOKEN": "${GITHUB_PAT}"}},
    "web": {"type": "websocket", "url": "wss://example.com"},
    "ok": {"command": "npx"},
    "both": {"command": "x", "url": "https://example.com", "timeout": "abc"}
  },
  "switchboard": {"naming": "sometimes"}
}`
	want := []string{
		`mcp.json:3:15: mcpServers.github: "command" or "url" is required`,
		`mcp.json:4:21: mcpServers.web.type: unknown transport "websocket" (want stdio, http or sse)`,
		`mcp.json:4:41: mcpServers.web.url: unsupported scheme (want http or https)`,
		`mcp.json:6:13: mcpServers.both: "command" and "url" are mutually exclusive`,
		`mcp.json:6:71: mcpServers.both.timeout: "abc" is not a duration`,
		`mcp.json:8:29: switchboard.naming: unknown naming "sometimes" (want auto, never or always)`,
	}
	got := parseErrs(t, src, nil)
	if !slices.Equal(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestErrorsNeverLeakValues feeds a secret-looking value through every expandable
// field of broken entries.
func TestErrorsNeverLeakValues(t *testing.T) {
	const secret = "ghp_s3cr3tS3CR3Ts3cr3t"
	env := map[string]string{"TOKEN": secret, "SCHEME": "s3cr3t:x", "HOSTLESS": "http:///" + secret}
	src := `{"servers": {
		"a": {"url": "${SCHEME}", "headers": {"Authorization": "Bearer ${TOKEN}", "X": 1}},
		"b": {"url": "${HOSTLESS}"},
		"c": {"url": "${TOKEN}", "command": "${TOKEN}", "env": {"T": "${TOKEN}", "N": null}, "args": ["${TOKEN}", 1]},
		"d": {"type": "sse", "command": "${TOKEN}", "cwd": "${TOKEN}"},
		"e": {"url": "https://${TOKEN}@h/%zz?t=${TOKEN}"}
	}}`
	got := parseErrs(t, src, env)
	if len(got) < 5 {
		t.Errorf("want errors for every server, got:\n%s", strings.Join(got, "\n"))
	}
	for _, e := range got {
		if strings.Contains(e, secret) || strings.Contains(e, "s3cr3t") {
			t.Errorf("error leaks the value: %s", e)
		}
	}
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{Source: "mcp.json", Line: 3, Col: 5, Path: "servers.x", Msg: "bad"}, "mcp.json:3:5: servers.x: bad"},
		{Error{Source: "mcp.json", Path: "servers.x", Msg: "bad"}, "mcp.json: servers.x: bad"},
		{Error{Source: "mcp.json", Line: 3, Msg: "bad"}, "mcp.json:3: bad"},
		{Error{Line: 3, Col: 1, Msg: "bad"}, "3:1: bad"},
		{Error{Msg: "bad"}, "bad"},
		{Error{Path: "p", Msg: "bad"}, "p: bad"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.e, got, tt.want)
		}
	}
	es := Errors{{Msg: "a"}, {Msg: "b"}}
	if es.Error() != "a\nb" || len(es.Unwrap()) != 2 {
		t.Errorf("Errors = %q", es.Error())
	}
	var target *Error
	if !errors.As(error(es), &target) || target.Msg != "a" {
		t.Errorf("errors.As found %+v", target)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, []byte("{\n // c\n \"mcpServers\": {\"a\": {\"command\": \"a\",},},\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != path || cfg.Shape != "mcpServers" || cfg.Server("a") == nil {
		t.Errorf("cfg = %+v", cfg)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"mcpServers": {"a": {}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad, nil)
	if want := bad + `:1:22: mcpServers.a: "command" or "url" is required`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}

	missing := filepath.Join(dir, "missing.json")
	cfg, err = Load(missing, nil)
	if cfg != nil || err == nil {
		t.Fatalf("Load(missing) = %v, %v", cfg, err)
	}
	if want := missing + ": open: no such file or directory"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(err, fs.ErrNotExist) = false")
	}
}
