package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTransportInference(t *testing.T) {
	tests := []struct {
		entry string
		want  Transport
	}{
		{`{"command": "npx"}`, Stdio},
		{`{"url": "https://h.example/mcp"}`, HTTP},
		{`{"url": "https://h.example/sse"}`, SSE},
		{`{"url": "https://h.example/v1/sse/"}`, SSE},
		{`{"url": "https://h.example/sse?x=1"}`, SSE},
		{`{"url": "https://h.example/ssex"}`, HTTP},
		{`{"url": "https://h.example/SSE/mcp"}`, HTTP},
		{`{"command": "npx", "type": "stdio"}`, Stdio},
		{`{"url": "https://h.example/sse", "type": "http"}`, HTTP},
		{`{"url": "https://h.example/mcp", "type": "sse"}`, SSE},
		{`{"url": "https://h.example/mcp", "type": "SSE"}`, SSE},
		{`{"url": "https://h.example/mcp", "type": "streamable-http"}`, HTTP},
		{`{"url": "https://h.example/mcp", "type": "streamable_http"}`, HTTP},
		{`{"url": "https://h.example/mcp", "type": "streamableHttp"}`, HTTP},
		{`{"url": "https://h.example/mcp", "transport": "sse"}`, SSE},
		{`{"url": "https://h.example/mcp", "type": "sse", "transport": "SSE"}`, SSE},
		{`{"url": "http://localhost:8080"}`, HTTP},
	}
	for _, tt := range tests {
		cfg := mustParse(t, `{"servers": {"x": `+tt.entry+`}}`, nil)
		if got := cfg.Server("x").Transport; got != tt.want {
			t.Errorf("%s: Transport = %q, want %q", tt.entry, got, tt.want)
		}
	}
}

func TestEntryFields(t *testing.T) {
	cfg := mustParse(t, `{"mcpServers": {"full": {
		"command": "npx", "args": ["-y", "pkg"], "cwd": "/srv",
		"env": {"S": "v", "N": 42, "F": 1.50, "B": true, "E": ""},
		"description": "Full entry", "disabled": false, "enabled": true,
		"timeout": "1m30s", "toolTimeout": 2.5, "heartbeat": 0,
		"tools": {"allow": ["read_*", "list?"], "deny": ["read_secret"]},
		"prefix": "fs_1", "required": true, "inheritEnv": false
	}}}`, nil)
	s := cfg.Server("full")
	want := Server{
		Name: "full", Transport: Stdio, Command: "npx", Args: []string{"-y", "pkg"}, Cwd: "/srv",
		Env:         map[string]string{"S": "v", "N": "42", "F": "1.50", "B": "true", "E": ""},
		Description: "Full entry", InitTimeout: 90 * time.Second, ToolTimeout: 2500 * time.Millisecond,
		Heartbeat: -1, Tools: ToolFilter{Allow: []string{"read_*", "list?"}, Deny: []string{"read_secret"}},
		Prefix: "fs_1", Required: true, InheritEnv: false,
	}
	if !equalServer(*s, want) {
		t.Errorf("server =\n%+v\nwant\n%+v", *s, want)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("Warnings = %q", cfg.Warnings)
	}

	http := mustParse(t, `{"servers": {"h": {"url": "https://h.example/mcp", "headers": {"Authorization": "Bearer x", "X-Id": "1"}}}}`, nil).Server("h")
	if http.Headers["Authorization"] != "Bearer x" || http.Headers["X-Id"] != "1" || !http.InheritEnv {
		t.Errorf("http = %+v", http)
	}
}

func equalServer(a, b Server) bool {
	return a.Name == b.Name && a.Transport == b.Transport && a.Command == b.Command &&
		slices.Equal(a.Args, b.Args) && mapsEqual(a.Env, b.Env) && a.Cwd == b.Cwd &&
		a.InheritEnv == b.InheritEnv && a.URL == b.URL && mapsEqual(a.Headers, b.Headers) &&
		a.Disabled == b.Disabled && a.Description == b.Description &&
		a.InitTimeout == b.InitTimeout && a.ToolTimeout == b.ToolTimeout && a.Heartbeat == b.Heartbeat &&
		slices.Equal(a.Tools.Allow, b.Tools.Allow) && slices.Equal(a.Tools.Deny, b.Tools.Deny) &&
		a.Prefix == b.Prefix && a.Required == b.Required
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestDisabled(t *testing.T) {
	tests := []struct {
		fields string
		want   bool
	}{
		{``, false},
		{`, "disabled": true`, true},
		{`, "disabled": false`, false},
		{`, "enabled": false`, true},
		{`, "enabled": true`, false},
		{`, "disabled": true, "enabled": false`, true},
		{`, "disabled": false, "enabled": true`, false},
		{`, "disabled": null`, false},
	}
	for _, tt := range tests {
		cfg := mustParse(t, `{"servers": {"x": {"command": "c"`+tt.fields+`}}}`, nil)
		if got := cfg.Server("x").Disabled; got != tt.want {
			t.Errorf("%s: Disabled = %v, want %v", tt.fields, got, tt.want)
		}
	}
}

func TestDurations(t *testing.T) {
	tests := []struct {
		in   any
		want time.Duration
		err  string
	}{
		{"30s", 30 * time.Second, ""},
		{"1m30s", 90 * time.Second, ""},
		{"1.5s", 1500 * time.Millisecond, ""},
		{"250ms", 250 * time.Millisecond, ""},
		{"30", 30 * time.Second, ""},
		{"2.5", 2500 * time.Millisecond, ""},
		{"0", 0, ""},
		{"-5", -5 * time.Second, ""},
		{10, 10 * time.Second, ""},
		{2.5, 2500 * time.Millisecond, ""},
		{int64(3), 3 * time.Second, ""},
		{"abc", 0, `"abc" is not a duration`},
		{"", 0, `"" is not a duration`},
		{"10 s", 0, `"10 s" is not a duration`},
		{1e300, 0, "1e+300 seconds is out of range"},
		{true, 0, `want a duration (a number of seconds or a string like "30s")`},
		{nil, 0, `want a duration (a number of seconds or a string like "30s")`},
	}
	for _, tt := range tests {
		got, err := parseDuration(tt.in)
		switch {
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("parseDuration(%#v) error = %v, want %q", tt.in, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("parseDuration(%#v) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}

	// The same forms through a config, with JSON numbers.
	cfg := mustParse(t, `{"a": {"command": "c", "timeout": 10, "toolTimeout": "30", "heartbeat": 0.5},
		"switchboard": {"heartbeat": 5, "retryFailed": "2m", "maxArgumentDepth": 16}}`, nil)
	a := cfg.Server("a")
	if a.InitTimeout != 10*time.Second || a.ToolTimeout != 30*time.Second || a.Heartbeat != 500*time.Millisecond {
		t.Errorf("a = %+v", a)
	}
	if cfg.Settings.Heartbeat != 5*time.Second || cfg.Settings.RetryFailed != 2*time.Minute || cfg.Settings.MaxArgumentDepth != 16 {
		t.Errorf("Settings = %+v", cfg.Settings)
	}

	// An explicit 0 turns heartbeats and failed-server retries off; it is stored as -1
	// because a zero field means "use the default".
	off := mustParse(t, `{"a": {"command": "c", "heartbeat": 0}, "b": {"command": "c"},
		"switchboard": {"heartbeat": "0s", "retryFailed": 0}}`, nil)
	if off.Server("a").Heartbeat != -1 || off.Server("b").Heartbeat != 0 {
		t.Errorf("heartbeat 0 = %v, absent = %v; want -1 and 0", off.Server("a").Heartbeat, off.Server("b").Heartbeat)
	}
	if off.Settings.Heartbeat != -1 || off.Settings.RetryFailed != -1 {
		t.Errorf("settings with explicit zeros = %+v, want both -1", off.Settings)
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name  string
		entry string
		want  []string
	}{
		{"unknown field", `{"command": "c", "foo": 1, "bar": {}}`,
			[]string{"mcp.json:1:36: servers.x.foo: unknown field (ignored)", "mcp.json:1:46: servers.x.bar: unknown field (ignored)"}},
		{"envFile", `{"command": "c", "envFile": ".env"}`, []string{"servers.x.envFile: not supported (ignored)"}},
		{"other hosts' fields", `{"command": "c", "alwaysAllow": ["a"], "autoApprove": [], "autoStart": true}`, nil},
		{"null fields", `{"command": "c", "args": null, "env": null, "foo": null}`, nil},
		{"tools unknown key", `{"command": "c", "tools": {"allow": [], "only": []}}`, []string{"mcp.json:1:59: servers.x.tools.only: unknown field (ignored)"}},
		{"stdio fields on http", `{"url": "https://h", "args": [], "env": {}, "cwd": "/"}`,
			[]string{"servers.x.args: ignored for http servers", "servers.x.env: ignored for http servers", "servers.x.cwd: ignored for http servers"}},
		{"headers on stdio", `{"command": "c", "headers": {}}`, []string{"servers.x.headers: ignored for stdio servers"}},
		{"milliseconds", `{"command": "c", "timeout": 30000, "toolTimeout": "5000", "heartbeat": 5000}`,
			[]string{"servers.x.timeout: 30000 is taken as seconds, not milliseconds", "servers.x.toolTimeout: 5000 is taken as seconds, not milliseconds",
				"servers.x.heartbeat: 5000 is taken as seconds, not milliseconds"}},
		{"large duration string is fine", `{"command": "c", "timeout": "30m"}`, nil},
		{"headers over plain http to another host", `{"url": "http://mcp.example.com/mcp", "headers": {"Authorization": "Bearer abcdef123456"}}`,
			[]string{"servers.x.url: plain http to a host beyond this machine: the headers (credentials, as a rule) travel unencrypted; use https"}},
		{"headers over http to this machine", `{"url": "http://127.0.0.1:8080/mcp", "headers": {"X-Key": "k1234"}}`, nil},
		{"headers over http to localhost", `{"url": "http://localhost:8080/sse", "headers": {"X-Key": "k1234"}}`, nil},
		{"headers over http to ::1", `{"url": "http://[::1]:8080/mcp", "headers": {"X-Key": "k1234"}}`, nil},
		{"headers over https", `{"url": "https://mcp.example.com/mcp", "headers": {"X-Key": "k1234"}}`, nil},
		{"plain http without headers", `{"url": "http://10.0.0.5/mcp"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustParse(t, `{"servers": {"x": `+tt.entry+`}}`, nil)
			if !slices.Equal(cfg.Warnings, tt.want) {
				t.Errorf("Warnings = %q, want %q", cfg.Warnings, tt.want)
			}
		})
	}
}

func TestEnviron(t *testing.T) {
	host := []string{"PATH=/bin", "HOME=/home/u", "AWS_SECRET=host-secret", "FOO=host", "BROKEN", "=C:=C:\\", "FOO=host2"}
	tests := []struct {
		name    string
		inherit bool
		want    []string
	}{
		{"inherit", true, []string{"AWS_SECRET=host-secret", "EXTRA=1", "FOO=mine", "HOME=/home/u", "PATH=/bin"}},
		{"base only", false, []string{"EXTRA=1", "FOO=mine", "HOME=/home/u", "PATH=/bin"}},
	}
	for _, tt := range tests {
		s := Server{InheritEnv: tt.inherit, Env: map[string]string{"FOO": "mine", "EXTRA": "1"}}
		if got := s.Environ(host); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Environ = %q, want %q", tt.name, got, tt.want)
		}
	}
	// Duplicate host entries: the last wins, as in os/exec.
	s := Server{InheritEnv: true}
	if got := s.Environ([]string{"A=1", "A=2"}); !slices.Equal(got, []string{"A=2"}) {
		t.Errorf("Environ = %q", got)
	}

	// inheritEnv from the config, both ways.
	cfg := mustParse(t, `{"a": {"command": "a", "env": {"T": "t"}}, "b": {"command": "b", "inheritEnv": false, "env": {"T": "t"}}}`, nil)
	if got := cfg.Server("a").Environ(host); !slices.Contains(got, "AWS_SECRET=host-secret") || !slices.Contains(got, "T=t") {
		t.Errorf("a: Environ = %q", got)
	}
	if got := cfg.Server("b").Environ(host); slices.Contains(got, "AWS_SECRET=host-secret") || !slices.Contains(got, "T=t") || !slices.Contains(got, "PATH=/bin") {
		t.Errorf("b: Environ = %q", got)
	}
}

func TestSecrets(t *testing.T) {
	cfg := mustParse(t, `{"servers": {
		"a": {"command": "a", "env": {"TOKEN": "${T}", "EMPTY": "", "DUP": "shared"}, "disabled": true},
		"b": {"url": "https://h", "headers": {"Authorization": "Bearer ${T}", "X": "shared"}},
		"c": {"command": "${BIN}", "args": ["--api-key", "${API_KEY}", "--root", "${HOME}/x", "${GH_PAT}"], "cwd": "${DIR}"},
		"d": {"url": "https://bob:pa55word@h/mcp?key=${QKEY}&plain=literal-value"},
		"e": {"url": "https://${HOST}/${SECRET_PATH}/mcp"}
	}}`, map[string]string{"T": "tok", "API_KEY": "argsecret", "QKEY": "urlsecret", "BIN": "/usr/bin/tool", "DIR": "/srv",
		"HOME": "/home/someone", "GH_PAT": "patsecret", "HOST": "h.example", "SECRET_PATH": "pathsecret"})
	// Variables named like credentials are secrets wherever they are used; others
	// (${HOME}, ${HOST}, ${BIN}) only when they feed env or header values. A URL's
	// password and query values are secrets too (in that order, the values by
	// parameter name), written or substituted.
	want := []string{"shared", "tok", "Bearer tok", "pa55word", "urlsecret", "literal-value", "argsecret", "patsecret", "pathsecret"}
	if got := cfg.Secrets(); !slices.Equal(got, want) {
		t.Errorf("Secrets = %q, want %q", got, want)
	}
}

// TestDurationRule runs every duration field, of a server and of the "switchboard"
// section, through the one rule: seconds or a Go duration, never negative (refused at
// its place), plain numbers of 1000 or more warned about.
func TestDurationRule(t *testing.T) {
	fields := []struct {
		path string // as in messages
		zero string // what 0 means, as the refusal says
		src  func(v string) string
		get  func(*Config) time.Duration
	}{
		{"servers.x.timeout", "the default", func(v string) string { return `{"servers": {"x": {"command": "c", "timeout": ` + v + `}}}` },
			func(c *Config) time.Duration { return c.Server("x").InitTimeout }},
		{"servers.x.toolTimeout", "the default", func(v string) string { return `{"servers": {"x": {"command": "c", "toolTimeout": ` + v + `}}}` },
			func(c *Config) time.Duration { return c.Server("x").ToolTimeout }},
		{"servers.x.heartbeat", "off", func(v string) string { return `{"servers": {"x": {"command": "c", "heartbeat": ` + v + `}}}` },
			func(c *Config) time.Duration { return c.Server("x").Heartbeat }},
		{"switchboard.heartbeat", "off", func(v string) string {
			return `{"servers": {"x": {"command": "c"}}, "switchboard": {"heartbeat": ` + v + `}}`
		},
			func(c *Config) time.Duration { return c.Settings.Heartbeat }},
		{"switchboard.retryFailed", "off", func(v string) string {
			return `{"servers": {"x": {"command": "c"}}, "switchboard": {"retryFailed": ` + v + `}}`
		},
			func(c *Config) time.Duration { return c.Settings.RetryFailed }},
		{"switchboard.sessions.timeout", "off", func(v string) string {
			return `{"servers": {"x": {"command": "c"}}, "switchboard": {"sessions": {"timeout": ` + v + `}}}`
		},
			func(c *Config) time.Duration { return c.Settings.Sessions.Timeout }},
	}
	values := []struct {
		in   string
		want time.Duration // when accepted
		bad  bool          // refused as negative
		warn bool          // warned about as likely milliseconds
	}{
		{in: `5`, want: 5 * time.Second},
		{in: `"5"`, want: 5 * time.Second},
		{in: `2.5`, want: 2500 * time.Millisecond},
		{in: `"1m30s"`, want: 90 * time.Second},
		{in: `"2h"`, want: 2 * time.Hour},
		{in: `5000`, want: 5000 * time.Second, warn: true},
		{in: `"5000"`, want: 5000 * time.Second, warn: true},
		{in: `-5`, bad: true},
		{in: `-0.5`, bad: true},
		{in: `"-1s"`, bad: true},
		{in: `"-5"`, bad: true},
		{in: `"-1m30s"`, bad: true},
	}
	for _, f := range fields {
		for _, v := range values {
			t.Run(f.path+"="+v.in, func(t *testing.T) {
				src := f.src(v.in)
				if v.bad {
					col := strings.Index(src, v.in) + 1
					want := []string{fmt.Sprintf("mcp.json:1:%d: %s: must not be negative (0 means %s)", col, f.path, f.zero)}
					if got := parseErrs(t, src, nil); !slices.Equal(got, want) {
						t.Errorf("errors = %q, want %q", got, want)
					}
					return
				}
				cfg := mustParse(t, src, nil)
				if got := f.get(cfg); got != v.want {
					t.Errorf("got %v, want %v", got, v.want)
				}
				var wantWarn []string
				if v.warn {
					wantWarn = []string{f.path + ": " + strings.Trim(v.in, `"`) + " is taken as seconds, not milliseconds"}
				}
				if !slices.Equal(cfg.Warnings, wantWarn) {
					t.Errorf("warnings = %q, want %q", cfg.Warnings, wantWarn)
				}
			})
		}
		// 0 is the default for timeouts (a zero field) and off for the others
		// (stored as -1, since a zero field means the default).
		t.Run(f.path+"=0", func(t *testing.T) {
			want := time.Duration(0)
			if f.zero == "off" {
				want = -1
			}
			if got := f.get(mustParse(t, f.src(`"0s"`), nil)); got != want {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// TestEnvValueRule: strings as written (expanded), numbers and booleans as their JSON
// text, null, objects and arrays refused at their place.
func TestEnvValueRule(t *testing.T) {
	tests := []struct {
		in   string
		want string // when accepted
		err  string // the message after "mcp.json:1:COL: servers.x.env.V: "
	}{
		{in: `"text"`, want: "text"},
		{in: `""`, want: ""},
		{in: `"${X}"`, want: "from-env"},
		{in: `1`, want: "1"},
		{in: `-2.50`, want: "-2.50"},
		{in: `1e3`, want: "1e3"},
		{in: `true`, want: "true"},
		{in: `false`, want: "false"},
		{in: `null`, err: `null is not a value (want a string, number or boolean; "" for empty)`},
		{in: `{}`, err: "want a string, number or boolean"},
		{in: `["a"]`, err: "want a string, number or boolean"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			src := `{"servers": {"x": {"command": "c", "env": {"V": ` + tt.in + `}}}}`
			env := map[string]string{"X": "from-env"}
			if tt.err != "" {
				want := []string{fmt.Sprintf("mcp.json:1:%d: servers.x.env.V: %s", strings.Index(src, tt.in)+1, tt.err)}
				if got := parseErrs(t, src, env); !slices.Equal(got, want) {
					t.Errorf("errors = %q, want %q", got, want)
				}
				return
			}
			if got, ok := mustParse(t, src, env).Server("x").Env["V"]; !ok || got != tt.want {
				t.Errorf("env V = %q (set %v), want %q", got, ok, tt.want)
			}
		})
	}
}
