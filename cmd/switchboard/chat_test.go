package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
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
	start func(fakellm.TB, fakellm.Script) *fakellm.Server
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
			// Its title, last: the first message, cut to 60 characters.
			r.wantStdout(t, id, `TITLE`, `call convert_time {"time": "2026-01-02T03:04:05Z", "to": "A…`)
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
		s.env["MY_KEY"] = testKey
		cfg := chatConfig(t, s, "openai", "http://127.0.0.1:1/v1")
		r := s.run("--config", cfg, "chat", "--provider", "anthropic", "--base-url", fake.URL, "--model", "other",
			"--api-key-env", "MY_KEY", "--max-tokens", "321", "--system", "Be brief.", "--store", "memory", "-m", "hi")
		r.wantCode(t, exitOK)
		r.wantStdout(t, "You said: hi")
		got := fake.Requests()[0]
		if got.Model != "other" || got.MaxTokens != 321 || got.System != "Be brief." || got.Header.Get("X-Api-Key") != testKey {
			t.Errorf("request: model %q, max tokens %d, system %q, key sent %v; want the flags'", got.Model, got.MaxTokens, got.System, got.Header.Get("X-Api-Key") == testKey)
		}
		// --store memory: nothing outlived the process.
		r = s.run("--config", cfg, "sessions", "--json")
		r.wantCode(t, exitOK)
		if strings.TrimSpace(r.stdout) != "[]" {
			t.Errorf("a memory session was stored: %s", r.stdout)
		}
	})
	t.Run("bad flag values", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		cfg := chatConfig(t, s, "openai", "http://127.0.0.1:1/v1")
		for _, c := range []struct{ flag, value, want string }{
			{"--provider", "gemini", "--provider gemini: want openai or anthropic"},
			{"--max-tokens", "0", "--max-tokens 0: want 1 or more"},
			{"--temperature", "3", "--temperature 3: want a number from 0 to 2"},
			{"--max-steps", "0", "--max-steps 0: want 1 or more"},
			{"--store", "redis", "--store redis: want sqlite, memory or postgres"},
			{"--store", "postgres", "--store postgres needs a connection string"},
		} {
			r := s.run("--config", cfg, "chat", c.flag, c.value, "-m", "hi")
			r.wantCode(t, exitUsage)
			r.wantStderr(t, c.want)
		}
	})
	// The API's rule for the ids clients choose (session.CheckID): a session created
	// here must be reachable at /v1/sessions/{id}.
	t.Run("bad session ids", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		cfg := chatConfig(t, s, "openai", "http://127.0.0.1:1/v1")
		s.env["OPENAI_API_KEY"] = testKey
		for _, id := range []string{"..", "../x", "two words", strings.Repeat("x", 300)} {
			r := s.run("--config", cfg, "chat", "--session", id, "-m", "hi")
			r.wantCode(t, exitUsage)
			r.wantStderr(t, "--session "+strconv.Quote(id)+": want 1 to 128 characters of A-Z a-z 0-9 _ . - (not . or ..)")
		}
		r := s.run("--config", cfg, "sessions", "--json")
		r.wantCode(t, exitOK)
		if strings.TrimSpace(r.stdout) != "[]" {
			t.Errorf("a session was stored under a refused id: %s", r.stdout)
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
	// At info level the CLI logs the server's stderr, where the sleep says it started.
	r := s.run("--log-level", "info", "--config", cfg, "chat", "--session", "crash", "-m", `call sleep {"ms": 600000}`)
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

// TestChatSessionTimeout: sessions idle longer than sessions.timeout are removed while
// chat runs; the session of the turn under way is kept.
func TestChatSessionTimeout(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"slow": {"command": `+jsonString(testserver.Build(t))+`}},
  "switchboard": {"model": {"name": "m", "baseURL": `+jsonString(fake.URL)+`}, "sessions": {"timeout": "1s"}}
}`)
	s.run("--config", cfg, "chat", "--session", "old", "-m", "hi").wantCode(t, exitOK)
	// A turn that outlasts the old session's second of grace, by a sleeping tool.
	r := s.run("--log-level", "info", "--config", cfg, "chat", "--session", "busy", "-m", `call sleep {"ms": 2500}`)
	r.wantCode(t, exitOK)
	r.wantStderr(t, `msg="session removed after idling" session=old`)
	r = s.run("--config", cfg, "sessions", "--json")
	r.wantCode(t, exitOK)
	var list []session.Summary
	decodeJSON(t, r.stdout, &list)
	if len(list) != 1 || list[0].ID != "busy" {
		t.Errorf("sessions after the timeout: %+v, want only the one whose turn ran", list)
	}
}

// TestChatServerRequests: a server's sampling request during a tool call is answered
// by the configured model when its config says "sampling": true, and refused
// otherwise; its elicitation is declined with nobody at a terminal. The turn goes on
// either way. The server (the Go SDK's conformance server, on a 2026-07-28
// connection) asks in the input requests of its results.
func TestChatServerRequests(t *testing.T) {
	t.Parallel()
	conf := testenv.EverythingServer(t)
	for _, tt := range []struct {
		name, extra, want string
		requests          int
	}{
		{"sampling allowed", `, "sampling": true`, "test_input_required_result_sampling: Sampling response: You said: What is the capital of France?", 3},
		{"sampling refused", ``, `test_input_required_result_sampling failed: `, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := fakellm.StartAnthropic(t, fakellm.Rules())
			s := newSandbox(t)
			s.env["ANTHROPIC_API_KEY"] = testKey
			cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"conf": {"command": `+jsonString(conf)+tt.extra+`}},
  "switchboard": {"model": {"provider": "anthropic", "name": "m", "baseURL": `+jsonString(fake.URL)+`}}
}`)
			r := s.run("--config", cfg, "chat", "-m", `call test_input_required_result_sampling {}`)
			r.wantCode(t, exitOK)
			r.wantStdout(t, tt.want)
			reqs := fake.Requests()
			if len(reqs) != tt.requests {
				t.Fatalf("the model got %d requests, want %d", len(reqs), tt.requests)
			}
			if tt.requests == 3 {
				sampled := reqs[1]
				if len(sampled.Tools) != 0 || len(sampled.Messages) != 1 || sampled.Messages[0].Text != "What is the capital of France?" || sampled.MaxTokens != 100 {
					t.Errorf("the sampling request reached the model as %+v, want the server's one message, its maxTokens and no tools", sampled)
				}
			} else {
				r.wantStdout(t, `server "conf"`, `"sampling": true`)
			}
		})
	}
	t.Run("elicitation without a terminal", func(t *testing.T) {
		t.Parallel()
		fake := fakellm.StartOpenAI(t, fakellm.Rules())
		s := newSandbox(t)
		s.env["OPENAI_API_KEY"] = testKey
		cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"conf": {"command": `+jsonString(conf)+`}},
  "switchboard": {"model": {"name": "m", "baseURL": `+jsonString(fake.URL)+`}}
}`)
		r := s.run("--config", cfg, "chat", "-m", `call test_input_required_result_elicitation {}`)
		r.wantCode(t, exitOK)
		r.wantStdout(t, "test_input_required_result_elicitation")
		if strings.Contains(r.stdout, "Hello,") {
			t.Errorf("an elicitation was accepted with nobody to ask\n%s", r)
		}
	})
}

// TestChatElicitationOnTerminal: with a person at a terminal, a server's elicitation
// during a call is asked field by field and the answers go back to the server.
func TestChatElicitationOnTerminal(t *testing.T) {
	scriptBin := scriptCommand(t)
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"conf": {"command": `+jsonString(testenv.EverythingServer(t))+`}},
  "switchboard": {"model": {"name": "m", "baseURL": `+jsonString(fake.URL)+`}}
}`)
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	line := "'" + testExe(t) + `' --config '` + cfg + `' chat -m 'call test_input_required_result_elicitation {}'`
	cmd := exec.CommandContext(ctx, scriptBin, "-qec", line, "/dev/null")
	cmd.Dir = s.Work
	cmd.Env = s.environ("elicit")
	cmd.Stdin = strings.NewReader("y\nada\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("chat under script: %v\n%s", err, out)
	}
	r := result{args: []string{"chat"}, stdout: string(out)}
	r.wantStdout(t, "conf asks: What is your name?", "name: ", "test_input_required_result_elicitation: Hello, ada!")
}

// TestChatElicitationDefaultsAndURL: at a terminal, Enter on a form's field takes
// the server's default (SEP-1034) into the answer, as the server sees it; a
// URL-mode question prints the server, the page's host and whole address and waits
// for Enter, which accepts (n declines).
func TestChatElicitationDefaultsAndURL(t *testing.T) {
	scriptBin := scriptCommand(t)
	t.Parallel()
	for _, tc := range []struct {
		name, call, stdin string
		want              []string
	}{
		{"form defaults", `call ask {}`, "y\nada\n\n\n\n\n", []string{
			"Your name (what to call you): ", `Favourite colour [red/green/blue] default "green": `, `Size [s=Small/l=Large] default "l": `,
			"Subscribe [y/n] default true: ",
			`ask: action=accept content={"color":"green","count":3,"name":"ada","size":"l","subscribe":true}`}},
		{"form answers", `call ask {}`, "y\nada\nblue\n7\nsmall\nn\n", []string{
			`ask: action=accept content={"color":"blue","count":7,"name":"ada","size":"s","subscribe":false}`}},
		{"url accepted", `call ask {"url": "https://example.com/connect?id=1", "message": "Sign in to \u001b[31mExample"}`, "\n", []string{
			"ts asks you to open a page on example.com: Sign in to ?[31mExample\r\n  https://example.com/connect?id=1\r\n",
			"Open it in your browser, then press Enter (n to decline): ",
			"ask: action=accept content=null"}},
		{"url declined", `call ask {"url": "https://example.com/connect"}`, "n\n", []string{"ask: action=decline content=null"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := fakellm.StartOpenAI(t, fakellm.Rules())
			s := newSandbox(t)
			s.env["OPENAI_API_KEY"] = testKey
			cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"ts": {"command": `+jsonString(testserver.Build(t))+`, "args": ["--ask"]}},
  "switchboard": {"model": {"name": "m", "baseURL": `+jsonString(fake.URL)+`}}
}`)
			ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
			defer cancel()
			line := "'" + testExe(t) + `' --config '` + cfg + `' chat -m '` + tc.call + `'`
			cmd := exec.CommandContext(ctx, scriptBin, "-qec", line, "/dev/null")
			cmd.Dir = s.Work
			cmd.Env = s.environ("elicit")
			cmd.Stdin = strings.NewReader(tc.stdin)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("chat under script: %v\n%s", err, out)
			}
			r := result{args: []string{"chat"}, stdout: string(out)}
			r.wantStdout(t, tc.want...)
		})
	}
}

// TestChatDeferred: with --deferred always the model is shown the search tools and
// the config's pinned tools only; a search loads what it finds into the stored
// session, and the next turn is shown it. A bad mode is a usage error.
func TestChatDeferred(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"clock": `+demoEntry(t, "clock", `"pinned": ["add_*"]`)+`},
  "switchboard": {"model": {"provider": "openai", "name": "test-model", "baseURL": `+jsonString(fake.URL)+`}}
}`)
	r := s.run("--config", cfg, "chat", "--deferred", "always", "--session", "d", "-m", `call tool_search {"query": "current time in a time zone"}`)
	r.wantCode(t, exitOK)
	r.wantStdout(t, "current_time (server clock)")
	first := fake.Requests()[0]
	var listed []string
	for _, tl := range first.Tools {
		listed = append(listed, tl.Name)
	}
	if want := []string{"tool_search", "tool_search_regex", "add_duration"}; !slices.Equal(listed, want) {
		t.Errorf("first request listed %v, want %v", listed, want)
	}
	r = s.run("--config", cfg, "sessions", "show", "d", "--json")
	r.wantCode(t, exitOK)
	var stored session.Session
	decodeJSON(t, r.stdout, &stored)
	if !slices.Contains(stored.Loaded, "current_time") {
		t.Fatalf("stored session's loaded tools: %v, want current_time among them", stored.Loaded)
	}
	r = s.run("--config", cfg, "chat", "--deferred", "always", "--session", "d", "-m", "hi")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "current_time")

	r = s.run("--config", cfg, "chat", "--deferred", "sometimes", "-m", "hi")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, `--deferred sometimes: want "auto", "auto:N%", "always" or "never"`)
}

// TestChatDeferredEmbeddings: the agent's tool_search uses the configured embeddings
// endpoint: the catalog and the model's query are embedded there.
func TestChatDeferredEmbeddings(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	emb := fakellm.StartEmbeddings(t, nil)
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"clock": `+demoEntry(t, "clock")+`},
  "switchboard": {"model": {"provider": "openai", "name": "test-model", "baseURL": `+jsonString(fake.URL)+`},
                  "deferred": "always",
                  "search": {"embeddings": {"baseURL": `+jsonString(emb.URL)+`, "model": "fake-embed"}}}
}`)
	r := s.run("--config", cfg, "chat", "-m", `call tool_search {"query": "what hour is it"}`)
	r.wantCode(t, exitOK)
	r.wantStdout(t, "(server clock)")
	if inputs := emb.Inputs(); !slices.Contains(inputs, "what hour is it") || len(inputs) != 3+1 {
		t.Errorf("embedded %q, want the 3 clock tools and the query", inputs)
	}
}
