package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/session"
)

// TestChatInterrupted: Ctrl-C (SIGINT) while a turn's tool runs ends chat with exit
// 130 and a line that says the turn was interrupted and what was kept — the session
// and its history, and how to continue it — instead of "agent: session …: context
// canceled" and exit 1. The stored session holds the user's message and the model's
// call.
func TestChatInterrupted(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := chatConfig(t, s, "openai", fake.URL, `, "slow": {"command": `+jsonString(testserver.Build(t))+`}`)
	s.onStart = func(cli *os.Process, stderr *testenv.Buffer) {
		testenv.WaitFor(t, "the sleep call to start", 30*time.Second, func() bool {
			return strings.Contains(stderr.String(), "testserver: sleep started")
		})
		if err := cli.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
	}
	// At info level the CLI logs the server's stderr, where the sleep says it started.
	r := s.run("--log-level", "info", "--config", cfg, "chat", "--session", "cut", "-m", `call sleep {"ms": 600000}`)
	r.wantCode(t, 130)
	r.wantStderr(t, "switchboard: turn interrupted: session cut keeps its history up to the interruption (your message and every step that finished); continue it with --session cut\n")
	r.wantStderr(t, "← sleep ", " interrupted\n")
	if strings.Contains(r.stderr, "agent: session") || strings.Contains(r.stderr, `tool "sleep": context canceled`) {
		t.Errorf("the interruption reads as an error\n%s", r)
	}
	s.onStart = nil
	r = s.run("--config", cfg, "sessions", "show", "cut", "--json")
	r.wantCode(t, exitOK)
	var stored session.Session
	decodeJSON(t, r.stdout, &stored)
	if len(stored.Messages) < 2 || stored.Messages[0].Text != `call sleep {"ms": 600000}` || len(stored.Messages[1].Calls) != 1 {
		t.Errorf("stored after the interruption: %+v, want the user's message and the model's call", stored.Messages)
	}
}

// TestChatInterruptedAtPrompt: Ctrl-C while chat waits for the next line of stdin ends
// it at once (it waited for a line or the end of input) with exit 130, saying where
// the conversation is kept; with --store memory, that nothing is.
func TestChatInterruptedAtPrompt(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := chatConfig(t, s, "openai", fake.URL)
	for _, tt := range []struct {
		store, want string
	}{
		{"sqlite", "switchboard: interrupted: session at-prompt keeps its history; continue it with --session at-prompt\n"},
		{"memory", "switchboard: interrupted: session at-prompt was in memory (--store memory): nothing of it is kept\n"},
	} {
		cmd, marker := s.command(context.Background(), "--log-level", "info", "--config", cfg, "chat", "--store", tt.store, "--session", "at-prompt")
		stdin, err := cmd.StdinPipe() // left open: chat waits for a line
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stdin.Close() })
		var stdout testenv.Buffer
		cmd.Stdout = &stdout
		p := startProc(t, cmd, marker)
		if _, err := stdin.Write([]byte("hello\n")); err != nil {
			t.Fatal(err)
		}
		// The answer's last line is ended once the turn is over: chat waits for the
		// next. (The answer has a line break of its own, after "You said: hello".)
		testenv.WaitFor(t, "the first turn's answer", 30*time.Second, func() bool {
			out := stdout.String()
			return strings.Contains(out, "You said: hello\nTools I can call:") && strings.HasSuffix(out, "\n")
		})
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if code := p.waitExit(t, "SIGINT"); code != 130 {
			t.Errorf("--store %s: exit %d after SIGINT at the prompt, want 130\n%s", tt.store, code, p.stderr.String())
		}
		if got := p.stderr.String(); !strings.HasSuffix(got, tt.want) {
			t.Errorf("--store %s: stderr does not end with %q\n%s", tt.store, tt.want, got)
		}
	}
}

// TestDataDirRefused: a --data-dir (or the config's sessions.path) that cannot hold the
// session store is a usage error, exit 2, said once: it was exit 1 with "session store
// X: session store X: mkdir …" twice over. A PostgreSQL store out of reach is said once
// too.
func TestDataDirRefused(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	file := writeFile(t, filepath.Join(s.Dir, "a-file"), "")
	dirAsDB := filepath.Join(s.Dir, "dir-as-db")
	if err := os.MkdirAll(filepath.Join(dirAsDB, "sessions.db"), 0o755); err != nil {
		t.Fatal(err)
	}
	s.env["OPENAI_API_KEY"] = testKey
	cfg := chatConfig(t, s, "openai", "http://127.0.0.1:1/v1")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "--data-dir", file}, "switchboard: --data-dir " + file + ": mkdir " + file + ": not a directory: give a directory that can be created and written to\n"},
		{[]string{"chat", "--data-dir", file, "-m", "hi"}, "switchboard: --data-dir " + file + ": mkdir " + file + ": not a directory: give a directory"},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", file}, "switchboard: --data-dir " + file + ": mkdir " + file + ": not a directory: give a directory"},
		{[]string{"sessions", "--data-dir", dirAsDB}, "switchboard: --data-dir " + dirAsDB + ": open " + filepath.Join(dirAsDB, "sessions.db") + ": is a directory: give a directory"},
	} {
		r := s.run(append([]string{"--config", cfg}, c.args...)...)
		r.wantCode(t, exitUsage)
		r.wantStderr(t, c.want)
		if n := strings.Count(r.stderr, "switchboard: "); n != 1 {
			t.Errorf("%v: %d error lines, want one\n%s", c.args, n, r)
		}
	}
	// A store that cannot be reached is a failure (exit 1), said once too, with no password.
	r := s.run("sessions", "--store", "postgres", "--dsn", "postgres://u:pw-Vv3@127.0.0.1:1/db?connect_timeout=5")
	r.wantCode(t, exitFailed)
	r.wantStderr(t, "switchboard: session store postgres 127.0.0.1:1/db: ")
	if n := strings.Count(r.stderr, "session store"); n != 1 || strings.Contains(r.stderr, "pw-Vv3") {
		t.Errorf(`"session store" said %d times (want once), or the password shown`+"\n%s", n, r)
	}
	inConfig := s.writeConfig("settings.json", `{"mcpServers": {}, "switchboard": {"sessions": {"path": `+jsonString(filepath.Join(file, "s.db"))+`}}}`)
	r = s.run("--config", inConfig, "sessions")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, `switchboard: session store `+filepath.Join(file, "s.db")+` (the config's "sessions": {"path"}): mkdir `+file+": not a directory")
}
