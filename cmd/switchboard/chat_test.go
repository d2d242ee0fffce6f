package main

import (
	"bufio"
	"context"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/session"
)

const testKey = "sk-test-0123456789abcdef"

// providers are the wire formats chat is tested against, each with its fake server.
var providers = []struct {
	name  string
	start func(testing.TB, fakellm.Script) *fakellm.Server
	key   string
}{
	{"openai", fakellm.StartOpenAI, "OPENAI_API_KEY"},
	{"anthropic", fakellm.StartAnthropic, "ANTHROPIC_API_KEY"},
}

// chatConfig is a config with the demo clock server (plus more servers) and the model
// at url.
func chatConfig(t *testing.T, s *sandbox, provider, url string, more ...string) string {
	t.Helper()
	return s.writeConfig("mcp.json", `{
  "mcpServers": {"clock": `+demoEntry(t, "clock")+strings.Join(more, "")+`},
  "switchboard": {"model": {"provider": "`+provider+`", "name": "test-model", "baseURL": `+jsonString(url)+`}}
}`)
}

var sessionLine = regexp.MustCompile(`session (\S+) \(continue it with --session`)

// sessionOf reads the id of the session a chat run created from its stderr.
func sessionOf(t *testing.T, r result) string {
	t.Helper()
	m := sessionLine.FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no new session named on stderr\n%s", r)
	}
	return m[1]
}

// TestChatTurn: a one-shot turn against each provider's fake runs the tool the model
// calls on a real server, streams the answer to stdout, shows the call on stderr,
// keeps the key out of every output, and stores the session, which a second run
// continues with its whole history.
func TestChatTurn(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			fake := p.start(t, fakellm.Rules())
			s := newSandbox(t)
			s.env[p.key] = testKey
			cfg := chatConfig(t, s, p.name, fake.URL)
			r := s.run("--config", cfg, "chat", "-m", `call convert_time {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}`)
			r.wantCode(t, exitOK)
			r.wantStdout(t, "convert_time: 2026-01-02T12:04:05+09:00")
			r.wantStderr(t, `→ convert_time {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}`, "← convert_time ", " ok\n")
			if strings.Contains(r.stdout+r.stderr, testKey) {
				t.Errorf("the API key was printed\n%s", r)
			}
			reqs := fake.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the model got %d requests, want 2 (the call, then the answer)", len(reqs))
			}
			if len(reqs[0].Tools) == 0 {
				t.Errorf("the first request offered no tools")
			}
			if got := reqs[0].Header.Get(authHeader(p.name)); !strings.Contains(got, testKey) {
				t.Errorf("the key from $%s did not reach the model (%s: %q)", p.key, authHeader(p.name), got)
			}

			id := sessionOf(t, r)
			r = s.run("--config", cfg, "chat", "--session", id, "-m", "thanks")
			r.wantCode(t, exitOK)
			r.wantStdout(t, "You said: thanks")
			last := fake.Requests()[2]
			if len(last.Messages) != 5 { // user, assistant call, tool result, assistant answer, user
				t.Errorf("the continued session sent %d messages, want the 5 of its history: %+v", len(last.Messages), last.Messages)
			}

			r = s.run("--config", cfg, "sessions")
			r.wantCode(t, exitOK)
			r.wantStdout(t, id)
			r = s.run("--config", cfg, "sessions", "show", id)
			r.wantCode(t, exitOK)
			r.wantStdout(t, "user: call convert_time", "→ convert_time ", "← convert_time: 2026-01-02T12:04:05+09:00", "user: thanks")
			r = s.run("--config", cfg, "sessions", "rm", id)
			r.wantCode(t, exitOK)
			r = s.run("--config", cfg, "sessions", "show", id)
			r.wantCode(t, exitUsage)
			r.wantStderr(t, "session not found", "run 'switchboard sessions' to list them")
		})
	}
}

func authHeader(provider string) string {
	if provider == "anthropic" {
		return "X-Api-Key"
	}
	return "Authorization"
}

// TestChatJSON: --json writes the turn's events as JSON lines, in order.
func TestChatJSON(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	r := s.run("--config", chatConfig(t, s, "openai", fake.URL), "chat", "--json", "-m", `call current_time {"zone": "UTC"}`)
	r.wantCode(t, exitOK)
	var kinds []string
	var finished eventJSON
	for _, line := range nonEmptyLines(r.stdout) {
		var e eventJSON
		decodeJSON(t, line, &e)
		kinds = append(kinds, e.Type)
		if e.Type == string(agent.ToolFinished) {
			finished = e
		}
	}
	want := []string{"step_usage", "tool_started", "tool_finished", "text", "step_usage", "turn_usage", "answer"}
	if got := strings.Join(dedupeText(kinds), " "); got != strings.Join(want, " ") {
		t.Errorf("event kinds = %s, want %s\n%s", got, strings.Join(want, " "), r)
	}
	if finished.Name != "current_time" || finished.DurationMs == nil || finished.Result == nil || !strings.Contains(*finished.Result, "(UTC, ") {
		t.Errorf("tool_finished event = %+v", finished)
	}
}

// dedupeText folds runs of "text" events into one, since how an answer is split into
// deltas is the fake's business.
func dedupeText(kinds []string) []string {
	var out []string
	for _, k := range kinds {
		if k == "text" && len(out) > 0 && out[len(out)-1] == "text" {
			continue
		}
		out = append(out, k)
	}
	return out
}

// TestChatInteractive: without -m, each line of stdin is a turn of one session.
func TestChatInteractive(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartAnthropic(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["ANTHROPIC_API_KEY"] = testKey
	in := "hello\n\ncall current_time {\"zone\": \"UTC\"}\n"
	r := s.runStdin(&in, "--config", chatConfig(t, s, "anthropic", fake.URL), "chat")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "You said: hello\n", "current_time: ")
	if n := len(fake.Requests()); n != 3 {
		t.Errorf("the model got %d requests, want 3 (hello; the call; its answer)", n)
	}
}

// TestChatApproval: a tool its server lists under "approve" is not run without a
// person to ask; the model is told why, and the turn goes on.
func TestChatApproval(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"clock": `+demoEntry(t, "clock", `"approve": ["convert_*"]`)+`},
  "switchboard": {"model": {"name": "m", "baseURL": `+jsonString(fake.URL)+`}}
}`)
	r := s.run("--config", cfg, "chat", "-m", "call convert_time {\"time\": \"2026-01-02T03:04:05Z\", \"to\": \"UTC\"}\ncall current_time {\"zone\": \"UTC\"}")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "convert_time failed: ", "the user must approve convert_time", "current_time: ")
}

// TestChatErrors: what the user gets when the model is not configured, cannot be
// reached, or refuses the key.
func TestChatErrors(t *testing.T) {
	t.Parallel()
	t.Run("no model", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		cfg := s.writeConfig("mcp.json", `{"mcpServers": {"clock": `+demoEntry(t, "clock")+`}}`)
		r := s.run("--config", cfg, "chat", "-m", "hi")
		r.wantCode(t, exitUsage)
		r.wantStderr(t, "no model configured", "--model")
	})
	t.Run("no key for the provider's own API", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		cfg := s.writeConfig("mcp.json", `{"mcpServers": {}, "switchboard": {"model": {"provider": "anthropic", "name": "m"}}}`)
		r := s.run("--config", cfg, "chat", "-m", "hi")
		r.wantCode(t, exitUsage)
		r.wantStderr(t, "$ANTHROPIC_API_KEY is not set")
	})
	t.Run("unreachable", func(t *testing.T) {
		t.Parallel()
		fake := fakellm.StartOpenAI(t, fakellm.Rules())
		url := fake.URL
		fake.Close() // nothing listens there now
		s := newSandbox(t)
		s.env["OPENAI_API_KEY"] = testKey
		r := s.run("--config", chatConfig(t, s, "openai", url), "chat", "-m", "hi")
		r.wantCode(t, exitFailed)
		r.wantStderr(t, "openai model at "+url)
	})
	t.Run("key refused", func(t *testing.T) {
		t.Parallel()
		fake := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Status: 401, ErrorMessage: "Incorrect API key provided: " + testKey}))
		s := newSandbox(t)
		s.env["OPENAI_API_KEY"] = testKey
		r := s.run("--config", chatConfig(t, s, "openai", fake.URL), "chat", "-m", "hi")
		r.wantCode(t, exitFailed)
		r.wantStderr(t, "openai model at "+fake.URL+": HTTP 401")
		if strings.Contains(r.stdout+r.stderr, testKey) {
			t.Errorf("the API key was printed\n%s", r)
		}
	})
	t.Run("flags override the config", func(t *testing.T) {
		t.Parallel()
		fake := fakellm.StartAnthropic(t, fakellm.Rules())
		s := newSandbox(t)
		s.env["ANTHROPIC_API_KEY"] = testKey
		cfg := chatConfig(t, s, "openai", "http://127.0.0.1:1/v1")
		r := s.run("--config", cfg, "chat", "--provider", "anthropic", "--base-url", fake.URL, "--model", "other", "-m", "hi")
		r.wantCode(t, exitOK)
		r.wantStdout(t, "You said: hi")
		if got := fake.Requests()[0].Model; got != "other" {
			t.Errorf("model = %q, want --model's", got)
		}
	})
}

// TestChatSurvivesKill: a chat killed with SIGKILL while a tool runs loses nothing
// already said: the stored session holds the user's message and the model's call,
// and the next turn answers the call left without a result before going on.
func TestChatSurvivesKill(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := chatConfig(t, s, "openai", fake.URL, `, "slow": {"command": `+jsonString(testserver.Build(t))+`}`)
	s.onStart = func(cli *os.Process, stderr *testenv.Buffer) {
		testenv.WaitFor(t, "the sleep call to start", 30*time.Second, func() bool {
			return strings.Contains(stderr.String(), "testserver: sleep started")
		})
		if err := cli.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	r := s.run("--config", cfg, "chat", "--session", "crash", "-m", `call sleep {"ms": 600000}`)
	if r.code != -1 && !strings.Contains(r.String(), "killed") {
		t.Fatalf("chat was not killed: exit %d\n%s", r.code, r)
	}
	s.onStart = nil
	r = s.run("--config", cfg, "sessions", "show", "crash", "--json")
	r.wantCode(t, exitOK)
	var stored session.Session
	decodeJSON(t, r.stdout, &stored)
	if len(stored.Messages) != 2 || stored.Messages[0].Text != `call sleep {"ms": 600000}` || len(stored.Messages[1].Calls) != 1 {
		t.Fatalf("stored after the kill: %+v, want the user's message and the model's call", stored.Messages)
	}

	r = s.run("--config", cfg, "chat", "--session", "crash", "-m", "still there?")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "You said: still there?")
	reqs := fake.Requests()
	sent := reqs[len(reqs)-1].Messages
	if len(sent) != 4 || sent[2].Role != "tool" || !strings.Contains(sent[2].Text, agent.InterruptedText) {
		t.Errorf("the next turn sent %+v, want the call answered with %q before the new message", sent, agent.InterruptedText)
	}
}

// TestFakeLLMCommand: the hidden fake-llm command serves a model that chat can use from
// a shell, and stops on SIGTERM.
func TestFakeLLMCommand(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd, _ := s.command(ctx, "fake-llm", "--provider", "anthropic", "--listen", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`^fake anthropic model at (http://127\.0\.0\.1:\d+) `).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("fake-llm said %q (%v)", line, err)
	}
	s.env["ANTHROPIC_API_KEY"] = testKey
	r := s.run("--config", chatConfig(t, s, "anthropic", m[1]), "chat", "-m", "hi there")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "You said: hi there")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("fake-llm after SIGTERM: %v, want exit 0", err)
	}
}
