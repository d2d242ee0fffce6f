package main

import (
	"strings"
	"testing"
)

// TestBearerTokenRefused: serve and mcp refuse a bearer token that no client can send
// as it is, from --token or $SWITCHBOARD_TOKEN, with exit 2 before anything starts: a
// blank one (--token ' ' counted as set, and let 0.0.0.0 be served with it), one with
// a space, a control character or a non-ASCII letter. The message names the token's
// place and never shows the token.
func TestBearerTokenRefused(t *testing.T) {
	t.Parallel()
	commands := [][]string{
		{"serve", "--addr", "0.0.0.0:0", "--store", "memory"},
		{"mcp", "--listen", "0.0.0.0:0"},
	}
	for _, token := range []string{" ", "\t", "tok en-Qq7", " tok-Rr8", "tok-Ss9\n", "tok-\x01Tt0", "tök-Uu1"} {
		for _, args := range commands {
			s := newSandbox(t)
			r := s.run(append(args, "--token", token)...)
			r.wantCode(t, exitUsage)
			r.wantStderr(t, "switchboard: --token: the bearer token must be printable ASCII with no spaces")
			s.env[tokenEnv] = token
			r = s.run(args...)
			r.wantCode(t, exitUsage)
			r.wantStderr(t, "switchboard: $SWITCHBOARD_TOKEN: the bearer token must be printable ASCII with no spaces")
			if shown := strings.TrimSpace(token); shown != "" && strings.Contains(r.stdout+r.stderr, shown) {
				t.Errorf("%v: the token was shown\n%s", args, r)
			}
		}
	}
}

// TestTokenHelp: --token's help says that the flag shows in the process list and
// points at $SWITCHBOARD_TOKEN, as --dsn's does for its connection string.
func TestTokenHelp(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"serve", "mcp"} {
		r := runInProcess(t, cmd, "--help")
		r.wantCode(t, exitOK)
		var line string
		for l := range strings.SplitSeq(r.stdout, "\n") {
			if strings.Contains(l, "--token string") {
				line = l
				break
			}
		}
		if !strings.Contains(line, "default $SWITCHBOARD_TOKEN") || !strings.Contains(line, "a flag shows in the process list") {
			t.Errorf("%s --help: --token's line %q does not point at $SWITCHBOARD_TOKEN and say the flag shows in the process list", cmd, line)
		}
	}
}
