//go:build unix

package hub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// providerName is what OpenAI and Anthropic accept as a tool name.
var providerName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// testserverTools are the tools every testserver instance registers.
var testserverTools = []string{"echo", "add", "sleep", "fail", "big", "log", "pid", "add_tool", "add_tool_later", "remove_tool", "crash", "stderr"}

// fast are lifecycle options short enough for tests.
func fast() *upstream.Options {
	o := testserver.Fast()
	o.ListChangedDebounce = 20 * time.Millisecond
	return o
}

func cfgOf(servers ...config.Server) *config.Config {
	return &config.Config{Source: "<test>", Shape: "value", Servers: servers}
}

// newHub builds a hub (not started) that logs into the returned buffer and is closed
// at the end of the test; the log is printed when the test failed. opts may be nil;
// its unset Logger and Upstream get a buffer logger and fast().
func newHub(t *testing.T, cfg *config.Config, opts *hub.Options) (*hub.Hub, *testenv.Buffer) {
	t.Helper()
	logs := &testenv.Buffer{}
	var o hub.Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if o.Upstream == nil {
		o.Upstream = fast()
	}
	h := hub.New(cfg, &o)
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if t.Failed() {
			t.Logf("hub log:\n%s", logs)
		}
	})
	return h, logs
}

// startHub is newHub plus a Start that must succeed.
func startHub(t *testing.T, cfg *config.Config, opts *hub.Options) (*hub.Hub, *testenv.Buffer) {
	t.Helper()
	h, logs := newHub(t, cfg, opts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx); err != nil {
		t.Fatalf("Start: %v\nlog:\n%s", err, logs)
	}
	return h, logs
}

func call(t *testing.T, h *hub.Hub, name string, args any) *tool.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := h.Call(ctx, name, raw)
	if err != nil {
		t.Fatalf("call %s: Go error %v", name, err)
	}
	if res == nil {
		t.Fatalf("call %s: nil result", name)
	}
	return res
}

// callText calls a tool that must succeed and returns its text.
func callText(t *testing.T, h *hub.Hub, name string, args any) string {
	t.Helper()
	res := call(t, h, name, args)
	if res.IsError {
		t.Fatalf("call %s: error result %q", name, tool.Text(res))
	}
	return tool.Text(res)
}

// callError calls a tool that must fail and returns the error text.
func callError(t *testing.T, h *hub.Hub, name string, args any) string {
	t.Helper()
	res := call(t, h, name, args)
	if !res.IsError {
		t.Fatalf("call %s: want an error result, got %q", name, tool.Text(res))
	}
	return tool.Text(res)
}

func pidOf(t *testing.T, h *hub.Hub, name string) int {
	t.Helper()
	s := strings.TrimSpace(callText(t, h, name, map[string]any{}))
	pid, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s returned %q", name, s)
	}
	return pid
}

// byName indexes the current catalog by exposed name.
func byName(h *hub.Hub) map[string]tool.Tool {
	m := map[string]tool.Tool{}
	for _, tl := range h.Tools() {
		m[tl.Name] = tl
	}
	return m
}

func namesOf(h *hub.Hub) []string {
	var out []string
	for _, tl := range h.Tools() {
		out = append(out, tl.Name)
	}
	sort.Strings(out)
	return out
}

// exposed returns the exposed name of (server, original), failing when it is absent.
func exposed(t *testing.T, h *hub.Hub, server, original string) string {
	t.Helper()
	for _, tl := range h.Tools() {
		if tl.Server == server && tl.OriginalName == original {
			return tl.Name
		}
	}
	t.Fatalf("no tool %q of server %q in the catalog: %v", original, server, namesOf(h))
	return ""
}

// checkCatalog asserts the catalog invariants: provider-safe, unique names that
// Lookup finds, and object input schemas.
func checkCatalog(t *testing.T, h *hub.Hub) {
	t.Helper()
	seen := map[string]bool{}
	for _, tl := range h.Tools() {
		if !providerName.MatchString(tl.Name) {
			t.Errorf("exposed name %q is not provider-safe", tl.Name)
		}
		if seen[tl.Name] {
			t.Errorf("exposed name %q appears twice", tl.Name)
		}
		seen[tl.Name] = true
		if got, ok := h.Lookup(tl.Name); !ok || got.Server != tl.Server || got.OriginalName != tl.OriginalName {
			t.Errorf("Lookup(%q) = %+v, %v; want the catalog's entry", tl.Name, got, ok)
		}
		var schema map[string]any
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("tool %s: input schema %s is not an object schema", tl.Name, tl.InputSchema)
		}
	}
}

// waitTools waits (on Changed, never by sleeping) until cond holds for the catalog.
func waitTools(t *testing.T, h *hub.Hub, what string, cond func(map[string]tool.Tool) bool) {
	t.Helper()
	deadline := time.NewTimer(15 * time.Second)
	defer deadline.Stop()
	for {
		ch := h.Changed() // taken before the check, so no change is missed
		if cond(byName(h)) {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s; catalog: %v; status: %+v", what, namesOf(h), h.Status())
		}
	}
}

func status(h *hub.Hub, name string) (upstream.Status, bool) {
	for _, st := range h.Status() {
		if st.Name == name {
			return st, true
		}
	}
	return upstream.Status{}, false
}

func stateOf(h *hub.Hub, name string) upstream.State {
	st, ok := status(h, name)
	if !ok {
		return ""
	}
	return st.State
}

func serverTools(h *hub.Hub, server string) []string {
	var out []string
	for _, tl := range h.Tools() {
		if tl.Server == server {
			out = append(out, tl.Name)
		}
	}
	return out
}

// 1. Every kind of real server in one hub: the Go demo servers and the Go SDK's
// conformance server next to the npm reference servers. The hub asks for 2026-07-28
// (upstream.DefaultProtocolVersion): the Go servers (SDK v1.8) speak it, the npm
// ones (TypeScript SDK 1.32) answer server/discover with an error and are connected
// with initialize at 2025-11-25, as before.
func TestAllServersTogether(t *testing.T) {
	t.Parallel()
	everything := testenv.NPMBin(t, testenv.ServerEverything)
	filesystem := testenv.NPMBin(t, testenv.ServerFilesystem)
	memory := testenv.NPMBin(t, testenv.ServerMemory)

	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(root) // the filesystem server compares real paths
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from the test\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	cfg := demo.Config(testenv.Switchboard(t))
	for i := range cfg.Servers {
		cfg.Servers[i].Env = map[string]string{demo.NotesFileEnv: filepath.Join(dir, "notes.json")}
		cfg.Servers[i].InitTimeout = 20 * time.Second
	}
	stdio := func(name, command string, env map[string]string, args ...string) config.Server {
		return config.Server{
			Name: name, Transport: config.Stdio, Command: command, Args: args, Env: env,
			InheritEnv: true, InitTimeout: 30 * time.Second, ToolTimeout: 30 * time.Second,
		}
	}
	cfg.Servers = append(cfg.Servers,
		stdio("conformance", testenv.EverythingServer(t), nil),
		stdio("everything", everything, nil),
		stdio("filesystem", filesystem, nil, root),
		stdio("memory", memory, map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}),
	)

	h, logs := startHub(t, cfg, nil)

	modern, older := upstream.DefaultProtocolVersion, "2025-11-25"
	want := map[string]string{ // server → protocol version
		"clock": modern, "notes": modern, "conformance": modern, "everything": older, "filesystem": older, "memory": older,
	}
	for _, st := range h.Status() {
		if st.State != upstream.Ready {
			t.Errorf("server %s: state %s (%s); stderr:\n%s", st.Name, st.State, st.LastError, strings.Join(st.Stderr, "\n"))
			continue
		}
		if st.Tools == 0 {
			t.Errorf("server %s is ready with no tools", st.Name)
		}
		if st.Protocol != want[st.Name] {
			t.Errorf("server %s: protocol %q, want %q", st.Name, st.Protocol, want[st.Name])
		}
		delete(want, st.Name)
	}
	if len(want) > 0 {
		t.Errorf("servers missing from Status: %v", want)
	}
	if t.Failed() {
		t.FailNow()
	}
	if !strings.Contains(logs.String(), fmt.Sprintf("MCP initialized: 6 servers, %d tools (0 failed)", len(h.Tools()))) {
		t.Errorf("no start-up summary in the log")
	}
	checkCatalog(t, h)

	// Known tools of every server.
	for _, k := range []struct{ server, tool string }{
		{"clock", "current_time"}, {"notes", "put_note"}, {"notes", "get_note"},
		{"conformance", "test_simple_text"},
		{"everything", "echo"}, {"everything", "get-sum"},
		{"filesystem", "list_directory"}, {"filesystem", "read_text_file"},
		{"memory", "create_entities"}, {"memory", "read_graph"},
	} {
		exposed(t, h, k.server, k.tool)
	}

	// One real call to each.
	now := callText(t, h, exposed(t, h, "clock", "current_time"), map[string]any{"zone": "UTC"})
	if !strings.Contains(now, "UTC") {
		t.Errorf("current_time = %q", now)
	}
	callText(t, h, exposed(t, h, "notes", "put_note"), map[string]any{"title": "hub test", "text": "written through the hub"})
	if got := callText(t, h, exposed(t, h, "notes", "get_note"), map[string]any{"title": "hub test"}); !strings.Contains(got, "written through the hub") {
		t.Errorf("get_note = %q", got)
	}
	if got := callText(t, h, exposed(t, h, "conformance", "test_simple_text"), map[string]any{}); got != "This is a simple text response for testing." {
		t.Errorf("test_simple_text = %q", got)
	}
	if got := callText(t, h, exposed(t, h, "everything", "echo"), map[string]any{"message": "across eras"}); got != "Echo: across eras" {
		t.Errorf("echo = %q", got)
	}
	if got := callText(t, h, exposed(t, h, "filesystem", "list_directory"), map[string]any{"path": root}); !strings.Contains(got, "[FILE] hello.txt") {
		t.Errorf("list_directory = %q", got)
	}
	callText(t, h, exposed(t, h, "memory", "create_entities"), map[string]any{
		"entities": []map[string]any{{"name": "Switchboard", "entityType": "project", "observations": []string{"tested by the hub"}}},
	})
	if got := callText(t, h, exposed(t, h, "memory", "read_graph"), map[string]any{}); !strings.Contains(got, "Switchboard") || !strings.Contains(got, "tested by the hub") {
		t.Errorf("read_graph = %q", got)
	}
}

// 2. Naming policies over two servers with the same tool names.
func TestNamingPolicies(t *testing.T) {
	t.Parallel()
	servers := func(t *testing.T) (a, b config.Server, pfA, pfB string) {
		dir := t.TempDir()
		pfA, pfB = filepath.Join(dir, "a.pid"), filepath.Join(dir, "b.pid")
		a = testserver.Stdio(t, "a", "--tools", "only_in_a", "--pidfile", pfA)
		b = testserver.Stdio(t, "b", "--pidfile", pfB)
		return a, b, pfA, pfB
	}

	t.Run("auto", func(t *testing.T) {
		t.Parallel()
		a, b, pfA, pfB := servers(t)
		cfg := cfgOf(a, b)
		cfg.Settings.Naming = config.NamingAuto
		h, _ := startHub(t, cfg, nil)
		checkCatalog(t, h)
		names := byName(h)
		// The first server in the config keeps the names both have; the other's
		// are prefixed.
		for _, n := range testserverTools {
			if tl, ok := names[n]; !ok || tl.Server != "a" || tl.OriginalName != n {
				t.Errorf("%s = %+v, %v; want a's, unprefixed", n, tl, ok)
			}
			if tl, ok := names["b__"+n]; !ok || tl.Server != "b" || tl.OriginalName != n {
				t.Errorf("b__%s = %+v, %v", n, tl, ok)
			}
			if _, ok := names["a__"+n]; ok {
				t.Errorf("a__%s exposed: the first server's tools keep their names", n)
			}
		}
		if tl, ok := names["only_in_a"]; !ok || tl.Server != "a" {
			t.Errorf("only_in_a = %+v, %v; want it unprefixed", tl, ok)
		}
		if len(names) != 2*len(testserverTools)+1 {
			t.Errorf("catalog has %d tools: %v", len(names), namesOf(h))
		}
		// Routing: each prefixed name reaches its own process.
		pidA, pidB := pidOf(t, h, "pid"), pidOf(t, h, "b__pid")
		if pidA != testserver.ReadPID(t, pfA) || pidB != testserver.ReadPID(t, pfB) || pidA == pidB {
			t.Errorf("pid = %d, b__pid = %d; pidfiles say %d and %d", pidA, pidB, testserver.ReadPID(t, pfA), testserver.ReadPID(t, pfB))
		}
		if got := callText(t, h, "only_in_a", map[string]any{"text": "solo"}); got != "solo" {
			t.Errorf("only_in_a = %q", got)
		}
		if got := callText(t, h, "b__add", map[string]any{"a": 2, "b": 3}); got != "2+3=5" {
			t.Errorf("b__add = %q", got)
		}
	})

	t.Run("always", func(t *testing.T) {
		t.Parallel()
		a, b, _, _ := servers(t)
		cfg := cfgOf(a, b)
		cfg.Settings.Naming = config.NamingAlways
		h, _ := startHub(t, cfg, nil)
		checkCatalog(t, h)
		for _, tl := range h.Tools() {
			if want := tl.Server + "__" + tl.OriginalName; tl.Name != want {
				t.Errorf("tool %q, want %q", tl.Name, want)
			}
		}
		if _, ok := byName(h)["a__only_in_a"]; !ok {
			t.Errorf("a__only_in_a missing: %v", namesOf(h))
		}
		if len(h.Tools()) != 2*len(testserverTools)+1 {
			t.Errorf("catalog has %d tools", len(h.Tools()))
		}
	})

	t.Run("never", func(t *testing.T) {
		t.Parallel()
		a, b, _, _ := servers(t)
		cfg := cfgOf(a, b)
		cfg.Settings.Naming = config.NamingNever
		h, _ := newHub(t, cfg, nil)
		err := h.Start(context.Background())
		if err == nil {
			t.Fatalf("Start succeeded with colliding names under naming never: %v", namesOf(h))
		}
		var ce *tool.CollisionError
		if !errors.As(err, &ce) || len(ce.Groups) != 1 || !slices.Contains(ce.Groups[0].Tools, "echo") {
			t.Errorf("Start error %#v is not a *tool.CollisionError naming echo", err)
		}
		for _, want := range []string{`naming "never": `, ` tools collide between "a" and "b" (`} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Start error %q does not mention %s", err, want)
			}
		}
	})

	t.Run("never, a server joining later", func(t *testing.T) {
		t.Parallel()
		a, _, pfA, _ := servers(t)
		pfB := filepath.Join(t.TempDir(), "b.pid")
		b := testserver.Stdio(t, "b", "--tools", "only_in_b", "--pidfile", pfB)
		c := testserver.Stdio(t, "c", "--tools", "only_in_c")
		c.Prefix = "cc" // under never, an explicit prefix resolves c's collisions
		cfg := cfgOf(a, c)
		cfg.Settings.Naming = config.NamingNever
		h, logs := startHub(t, cfg, nil)
		// b collides with a on every common tool: its own tool joins the catalog, the
		// names a serves stay a's, and the collision is logged (the catalog froze whole).
		if err := h.Add(b); err != nil {
			t.Fatalf("Add: %v", err)
		}
		waitTools(t, h, "only_in_b in the catalog beside a's tools", func(m map[string]tool.Tool) bool {
			_, ok := m["only_in_b"]
			return ok
		})
		if n := len(h.Tools()); n != 2*len(testserverTools)+3 {
			t.Errorf("catalog has %d tools, want a's %d, c's %d and only_in_b: %v", n, len(testserverTools)+1, len(testserverTools)+1, namesOf(h))
		}
		if pid := pidOf(t, h, "pid"); pid != testserver.ReadPID(t, pfA) {
			t.Errorf("pid reached pid %d, want a's %d", pid, testserver.ReadPID(t, pfA))
		}
		testenv.WaitFor(t, "the collision logged", 10*time.Second, func() bool {
			return strings.Contains(logs.String(), "colliding tools left out of the catalog") && strings.Contains(logs.String(), "tools collide between")
		})
		// The collision is the catalog's state, not a failure of what changes it: c
		// restarts (its restart stopped short of starting it while a collision stood).
		if err := h.Restart("c"); err != nil {
			t.Errorf("Restart during a collision: %v", err)
		}
		waitTools(t, h, "c's tools back after its restart", func(m map[string]tool.Tool) bool {
			_, ok := m["only_in_c"] // only colliding names take the prefix
			return ok
		})
		// With a gone nothing collides: b serves every name.
		if err := h.Remove("a"); err != nil {
			t.Fatalf("Remove: %v", err)
		}
		if pid := pidOf(t, h, "pid"); pid != testserver.ReadPID(t, pfB) {
			t.Errorf("after a's removal pid reached pid %d, want b's %d", pid, testserver.ReadPID(t, pfB))
		}
		if _, ok := byName(h)["only_in_a"]; ok {
			t.Errorf("only_in_a still listed after a's removal: %v", namesOf(h))
		}
	})

	t.Run("option overrides config", func(t *testing.T) {
		t.Parallel()
		a, b, _, _ := servers(t)
		cfg := cfgOf(a, b)
		cfg.Settings.Naming = config.NamingNever
		h, _ := startHub(t, cfg, &hub.Options{Naming: config.NamingAlways})
		if _, ok := byName(h)["a__only_in_a"]; !ok {
			t.Errorf("Options.Naming always not applied: %v", namesOf(h))
		}
	})

	t.Run("prefix", func(t *testing.T) {
		t.Parallel()
		a, b, pfA, _ := servers(t)
		a.Prefix = "alpha"
		// naming unset: auto; b comes first in the config and keeps the shared names.
		h, _ := startHub(t, cfgOf(b, a), nil)
		checkCatalog(t, h)
		names := byName(h)
		if tl := names["echo"]; tl.Server != "b" {
			t.Errorf("echo = %+v, want b's", tl)
		}
		for _, want := range []string{"alpha__echo", "alpha__pid", "only_in_a"} {
			if _, ok := names[want]; !ok {
				t.Errorf("%s missing: %v", want, namesOf(h))
			}
		}
		for _, n := range namesOf(h) {
			if strings.HasPrefix(n, "a__") {
				t.Errorf("%s: the server name is used despite prefix alpha", n)
			}
		}
		if tl := names["alpha__echo"]; tl.Server != "a" || tl.OriginalName != "echo" {
			t.Errorf("alpha__echo = %+v", tl)
		}
		if pid := pidOf(t, h, "alpha__pid"); pid != testserver.ReadPID(t, pfA) {
			t.Errorf("alpha__pid = %d, not a's process", pid)
		}
	})
}

// 3. tools.allow / tools.deny, including tools that appear later.
func TestToolFilters(t *testing.T) {
	t.Parallel()
	a := testserver.Stdio(t, "a", "--tools", "extra_one,extra_two")
	a.Tools = config.ToolFilter{Allow: []string{"e*", "add*", "pid"}, Deny: []string{"echo", "*_two"}}
	b := testserver.Stdio(t, "b")
	b.Tools = config.ToolFilter{Allow: []string{"s*"}, Deny: []string{"stderr"}}
	h, _ := startHub(t, cfgOf(a, b), nil)
	checkCatalog(t, h)

	want := []string{"add", "add_tool", "add_tool_later", "extra_one", "pid", "sleep"}
	if got := namesOf(h); !slices.Equal(got, want) {
		t.Fatalf("catalog = %v, want %v", got, want)
	}
	if tl := byName(h)["sleep"]; tl.Server != "b" {
		t.Errorf("sleep belongs to %q", tl.Server)
	}
	for _, hidden := range []string{"echo", "extra_two", "crash", "stderr"} {
		if msg := callError(t, h, hidden, map[string]any{"text": "x"}); !strings.Contains(msg, "unknown tool") {
			t.Errorf("call to filtered %s: %q", hidden, msg)
		}
	}

	// The filter also applies to tools a server adds at run time.
	callText(t, h, "add_tool", map[string]any{"name": "ex_hidden_two"})
	callText(t, h, "add_tool", map[string]any{"name": "extra_three"})
	waitTools(t, h, "extra_three", func(m map[string]tool.Tool) bool { _, ok := m["extra_three"]; return ok })
	if _, ok := byName(h)["ex_hidden_two"]; ok {
		t.Errorf("denied run-time tool ex_hidden_two is exposed")
	}
}

// 4. A server that never answers does not hold up the others.
func TestHangingServerDoesNotDelayOthers(t *testing.T) {
	// Not parallel: it measures how long Start takes.
	const hangTimeout = 500 * time.Millisecond
	hang := testserver.Stdio(t, "hang", "--hang-init")
	hang.InitTimeout = hangTimeout
	slow1 := testserver.Stdio(t, "slow1", "--init-delay", "200ms", "--tools", "tool_one")
	slow2 := testserver.Stdio(t, "slow2", "--init-delay", "200ms", "--tools", "tool_two")
	h, logs := newHub(t, cfgOf(slow1, hang, slow2), nil)

	began := time.Now()
	if err := h.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	took := time.Since(began)
	hangState := stateOf(h, "hang")
	// Each server's own start-up time: the hanging one is given up on after its init
	// timeout, the others took as long as they took to become ready (which grows on a
	// loaded machine, so the bound below is relative to it, not absolute).
	sum := hangTimeout
	for _, name := range []string{"slow1", "slow2"} {
		st, _ := status(h, name)
		if st.State != upstream.Ready {
			t.Fatalf("%s: state %s after Start (%s)", name, st.State, st.LastError)
		}
		sum += st.Since.Sub(began)
	}
	t.Logf("Start took %s; the servers one after another: %s", took, sum)
	// Concurrently, Start takes about the longest of them, not their sum.
	if took > sum*8/10 {
		t.Errorf("Start took %s, close to the %s the servers take one after another", took, sum)
	}
	// Start gave up on the hanging server after its init timeout; it did not wait for
	// its whole first cycle (3 attempts of 500ms plus backoffs, over 1.6s).
	if hangState != upstream.Connecting {
		t.Errorf("hang: state %s right after Start, want connecting (still retrying)", hangState)
	}
	wantTools := 2 * (len(testserverTools) + 1)
	if n := len(h.Tools()); n != wantTools {
		t.Errorf("catalog has %d tools, want %d", n, wantTools)
	}
	summary := fmt.Sprintf("MCP initialized: 3 servers, %d tools (1 failed)", wantTools)
	if !strings.Contains(logs.String(), summary) {
		t.Errorf("log lacks %q:\n%s", summary, logs)
	}
	if !regexp.MustCompile(`level=WARN msg="server not ready" server=hang`).MatchString(logs.String()) {
		t.Errorf("log lacks the warning about hang:\n%s", logs)
	}

	// The hanging server ends up failed, without tools, and says why.
	testenv.WaitFor(t, "hang to fail", 10*time.Second, func() bool { return stateOf(h, "hang") == upstream.Failed })
	st, _ := status(h, "hang")
	if !strings.Contains(st.LastError, "no answer to initialize within "+hangTimeout.String()) {
		t.Errorf("hang: last error %q", st.LastError)
	}
	if got := serverTools(h, "hang"); len(got) != 0 {
		t.Errorf("failed server has tools in the catalog: %v", got)
	}
	if got := callText(t, h, "tool_two", map[string]any{"text": "unaffected"}); got != "unaffected" {
		t.Errorf("tool_two = %q", got)
	}
}

// 5. Required servers.
func TestRequiredServer(t *testing.T) {
	t.Parallel()
	t.Run("required fails start", func(t *testing.T) {
		t.Parallel()
		vital := testserver.Stdio(t, "vital", "--crash-at-start")
		vital.Required = true
		h, _ := newHub(t, cfgOf(testserver.Stdio(t, "fine"), vital), nil)
		err := h.Start(context.Background())
		if err == nil {
			t.Fatal("Start succeeded without the required server")
		}
		for _, want := range []string{"required", "vital", "exited with status 2"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Start error %q lacks %q", err, want)
			}
		}
		if strings.Contains(err.Error(), "fine") {
			t.Errorf("Start error %q names the healthy server", err)
		}
		if st := stateOf(h, "fine"); st != upstream.Ready {
			t.Errorf("fine: %s", st)
		}
	})
	t.Run("required command missing", func(t *testing.T) {
		t.Parallel()
		ghost := config.Server{Name: "ghost", Transport: config.Stdio, Command: "no-such-command-xyz", InheritEnv: true, Required: true}
		h, _ := newHub(t, cfgOf(ghost), nil)
		if err := h.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "ghost") || !strings.Contains(err.Error(), "command not found") {
			t.Fatalf("Start error = %v", err)
		}
	})
	t.Run("one server", func(t *testing.T) {
		t.Parallel()
		_, logs := startHub(t, cfgOf(testserver.Stdio(t, "only")), nil)
		if want := fmt.Sprintf("MCP initialized: 1 server, %d tools (0 failed)", len(testserverTools)); !strings.Contains(logs.String(), want) {
			t.Errorf("summary is not %q:\n%s", want, logs)
		}
	})
	t.Run("optional failure is fine", func(t *testing.T) {
		t.Parallel()
		h, logs := startHub(t, cfgOf(testserver.Stdio(t, "fine"), testserver.Stdio(t, "broken", "--crash-at-start")), nil)
		if st := stateOf(h, "broken"); st != upstream.Failed {
			t.Errorf("broken: %s", st)
		}
		if !strings.Contains(logs.String(), fmt.Sprintf("MCP initialized: 2 servers, %d tools (1 failed)", len(testserverTools))) {
			t.Errorf("summary missing or wrong:\n%s", logs)
		}
		if got := callText(t, h, "echo", map[string]any{"text": "still here"}); got != "still here" {
			t.Errorf("echo = %q", got)
		}
	})
	t.Run("required and ready", func(t *testing.T) {
		t.Parallel()
		ok := testserver.Stdio(t, "ok")
		ok.Required = true
		startHub(t, cfgOf(ok), nil)
	})
}

// 6a. A server slower than Start's patience joins the catalog when it is ready.
func TestLateServerJoins(t *testing.T) {
	t.Parallel()
	late := testserver.Stdio(t, "late", "--init-delay", "1200ms", "--tools", "late_tool")
	early := testserver.Stdio(t, "early", "--tools", "early_tool")
	h, _ := newHub(t, cfgOf(early, late), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	began := time.Now()
	if err := h.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("Start took %s", time.Since(began))
	// Start returned at its context's end, not when late became ready (1.2s).
	if st := stateOf(h, "late"); st != upstream.Connecting {
		t.Fatalf("late: %s right after Start, want connecting", st)
	}
	waitTools(t, h, "early_tool", func(m map[string]tool.Tool) bool { _, ok := m["early_tool"]; return ok })
	if _, ok := byName(h)["late_tool"]; ok {
		t.Fatal("late_tool listed before late is ready")
	}
	waitTools(t, h, "late_tool", func(m map[string]tool.Tool) bool { _, ok := m["late_tool"]; return ok })
	checkCatalog(t, h)
	// Now echo exists twice: under auto the first server in the config keeps it,
	// the other's is prefixed (late joined within its init timeout: the start-up
	// names by the config, not by who was ready first).
	names := byName(h)
	for want, server := range map[string]string{"echo": "early", "late__echo": "late", "early_tool": "early", "late_tool": "late"} {
		if tl, ok := names[want]; !ok || tl.Server != server {
			t.Errorf("%s = %+v, %v; want %s's: %v", want, tl, ok, server, namesOf(h))
		}
	}
	if got := callText(t, h, "late_tool", map[string]any{"text": "better late"}); got != "better late" {
		t.Errorf("late_tool = %q", got)
	}
}

// 6b. Add and Remove on a running hub.
func TestAddRemove(t *testing.T) {
	t.Parallel()
	h, _ := startHub(t, cfgOf(testserver.Stdio(t, "base")), nil)
	pf := filepath.Join(t.TempDir(), "extra.pid")

	ch := h.Changed()
	if err := h.Add(testserver.Stdio(t, "extra", "--tools", "extra_tool", "--pidfile", pf)); err != nil {
		t.Fatalf("Add: %v", err)
	}
	select {
	case <-ch:
	case <-time.After(15 * time.Second):
		t.Fatal("Changed did not fire after Add")
	}
	waitTools(t, h, "extra's tools", func(m map[string]tool.Tool) bool {
		_, a := m["extra_tool"]
		_, b := m["extra__echo"]
		return a && b
	})
	checkCatalog(t, h)
	if tl, ok := byName(h)["echo"]; !ok || tl.Server != "base" {
		t.Errorf("base's echo renamed when extra joined: %v", namesOf(h))
	}
	pid := pidOf(t, h, "extra__pid")
	if want := testserver.ReadPID(t, pf); pid != want {
		t.Errorf("extra__pid = %d, pidfile says %d", pid, want)
	}
	if err := h.Add(testserver.Stdio(t, "extra")); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second Add of extra: %v", err)
	}

	ch = h.Changed()
	if err := h.Remove("extra"); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	select {
	case <-ch:
	default:
		t.Error("Changed did not fire by the time Remove returned")
	}
	if got := serverTools(h, "extra"); len(got) != 0 {
		t.Errorf("extra's tools still listed: %v", got)
	}
	if _, ok := byName(h)["echo"]; !ok {
		t.Errorf("base's echo renamed when extra left: %v", namesOf(h))
	}
	if testserver.ProcessAlive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("extra's process %d survived Remove", pid)
	}
	if _, ok := status(h, "extra"); ok {
		t.Error("extra still in Status")
	}
	if msg := callError(t, h, "extra_tool", map[string]any{"text": "x"}); !strings.Contains(msg, "unknown tool") {
		t.Errorf("call to removed tool: %q", msg)
	}
	if err := h.Remove("extra"); err == nil {
		t.Error("second Remove succeeded")
	}
	if got := callText(t, h, "echo", map[string]any{"text": "base lives"}); got != "base lives" {
		t.Errorf("echo = %q", got)
	}
}

// 7. Reload applies a new config by difference.
func TestReloadByDifference(t *testing.T) {
	t.Parallel()
	keep := testserver.Stdio(t, "keep")
	change := testserver.Stdio(t, "change")
	drop := testserver.Stdio(t, "drop")
	h, logs := startHub(t, cfgOf(keep, change, drop), &hub.Options{Naming: config.NamingAlways})
	pidKeep, pidChange, pidDrop := pidOf(t, h, "keep__pid"), pidOf(t, h, "change__pid"), pidOf(t, h, "drop__pid")

	changed := change
	changed.Args = []string{"--tools", "new_in_change"}
	added := testserver.Stdio(t, "added", "--tools", "new_server_tool")
	if err := h.Reload(cfgOf(keep, changed, added)); err != nil {
		t.Fatalf("Reload: %v", err)
	}
	// Stopped servers are gone by the time Reload returns.
	if got := serverTools(h, "drop"); len(got) != 0 {
		t.Errorf("dropped server's tools still listed: %v", got)
	}
	for name, pid := range map[string]int{"drop": pidDrop, "change (old)": pidChange} {
		if testserver.ProcessAlive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%s: process %d survived Reload", name, pid)
		}
	}
	waitTools(t, h, "the changed and the new server", func(m map[string]tool.Tool) bool {
		_, a := m["change__new_in_change"]
		_, b := m["added__new_server_tool"]
		return a && b
	})
	checkCatalog(t, h)
	if got := pidOf(t, h, "keep__pid"); got != pidKeep {
		t.Errorf("unchanged server restarted: pid %d → %d", pidKeep, got)
	}
	if got := pidOf(t, h, "change__pid"); got == pidChange {
		t.Errorf("changed server kept its process %d", got)
	}
	var names []string
	for _, st := range h.Status() {
		names = append(names, st.Name)
	}
	sort.Strings(names)
	if want := []string{"added", "change", "keep"}; !slices.Equal(names, want) {
		t.Errorf("servers after Reload = %v, want %v", names, want)
	}
	if st, _ := status(h, "keep"); st.Restarts != 0 || st.State != upstream.Ready {
		t.Errorf("keep: %+v", st)
	}
	if !strings.Contains(logs.String(), "config reloaded") || !strings.Contains(logs.String(), "stopped=2 started=2") {
		t.Errorf("no reload summary in the log:\n%s", logs)
	}
	if msg := callError(t, h, "drop__echo", map[string]any{"text": "x"}); !strings.Contains(msg, "unknown tool") {
		t.Errorf("call to a dropped server's tool: %q", msg)
	}

	// Options.Naming fixed the policy: a config that asks for another does not change it.
	auto := cfgOf(keep, changed, added)
	auto.Settings.Naming = config.NamingAuto
	if err := h.Reload(auto); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.Lookup("keep__pid"); !ok {
		t.Errorf("a reload's naming setting overrode Options.Naming: %v", namesOf(h))
	}
}

// Without a fixed policy, a reload's naming setting applies.
func TestReloadFollowsNaming(t *testing.T) {
	t.Parallel()
	a := testserver.Stdio(t, "a")
	h, _ := startHub(t, cfgOf(a), nil)
	if _, ok := h.Lookup("pid"); !ok {
		t.Fatalf("auto naming without collisions should keep plain names: %v", namesOf(h))
	}
	always := cfgOf(a)
	always.Settings.Naming = config.NamingAlways
	if err := h.Reload(always); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.Lookup("a__pid"); !ok {
		t.Errorf("naming \"always\" from the reloaded config not applied: %v", namesOf(h))
	}
	if got := pidOf(t, h, "a__pid"); got == 0 {
		t.Error("no pid")
	}
}

// 8. tools/list_changed from a server reaches the hub's catalog.
func TestListChangedPropagates(t *testing.T) {
	t.Parallel()
	h, _ := startHub(t, cfgOf(testserver.Stdio(t, "grow")), nil)
	ch := h.Changed()
	if got := callText(t, h, "add_tool", map[string]any{"name": "brand_new"}); got != "added brand_new" {
		t.Fatalf("add_tool = %q", got)
	}
	select {
	case <-ch:
	case <-time.After(15 * time.Second):
		t.Fatal("Changed did not fire after the server's list_changed")
	}
	waitTools(t, h, "brand_new", func(m map[string]tool.Tool) bool { _, ok := m["brand_new"]; return ok })
	if tl, ok := h.Lookup("brand_new"); !ok || tl.Server != "grow" || tl.OriginalName != "brand_new" {
		t.Errorf("Lookup(brand_new) = %+v, %v", tl, ok)
	}
	if got := callText(t, h, "brand_new", map[string]any{"text": "fresh"}); got != "fresh" {
		t.Errorf("brand_new = %q", got)
	}
	callText(t, h, "remove_tool", map[string]any{"name": "brand_new"})
	waitTools(t, h, "brand_new to go", func(m map[string]tool.Tool) bool { _, ok := m["brand_new"]; return !ok })
}

// 9. Failures come back as error results; only a closed hub is a Go error.
func TestCallErrors(t *testing.T) {
	t.Parallel()
	t.Run("unknown tool", func(t *testing.T) {
		t.Parallel()
		h, _ := startHub(t, cfgOf(testserver.Stdio(t, "ts")), nil)
		msg := callError(t, h, "ecoh", map[string]any{"text": "x"})
		for _, want := range []string{`unknown tool "ecoh"`, "did you mean", "echo"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message %q lacks %q", msg, want)
			}
		}
		msg = callError(t, h, "zzzzzzzzzzzz", nil)
		if !strings.Contains(msg, `unknown tool "zzzzzzzzzzzz"`) || strings.Contains(msg, "did you mean") {
			t.Errorf("message for a name like nothing: %q", msg)
		}
	})

	t.Run("server dies during the call", func(t *testing.T) {
		t.Parallel()
		h, _ := startHub(t, cfgOf(testserver.Stdio(t, "crashy")), nil)
		msg := callError(t, h, "crash", map[string]any{})
		for _, want := range []string{`server "crashy"`, `tool "crash"`, "connection lost during the call", "exited with status 3"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message %q lacks %q", msg, want)
			}
		}
		if got := callText(t, h, "echo", map[string]any{"text": "back"}); got != "back" {
			t.Errorf("echo after the crash = %q", got)
		}
	})

	t.Run("server fails while the call waits", func(t *testing.T) {
		t.Parallel()
		gate := filepath.Join(t.TempDir(), "broken")
		// A wrapper that crashes at start while the gate file exists.
		script := fmt.Sprintf("if [ -e %q ]; then echo broken >&2; exit 7; fi; exec %q", gate, testserver.Build(t))
		srv := config.Server{Name: "phoenix", Transport: config.Stdio, Command: "sh", Args: []string{"-c", script},
			InheritEnv: true, InitTimeout: 5 * time.Second, ToolTimeout: 20 * time.Second}
		opts := fast()
		// After the crash the supervisor waits ~1s, tries once more and gives up: the
		// echo call below is made inside that second, while the tools are still listed.
		opts.Attempts, opts.BackoffBase, opts.BackoffMax = 2, time.Second, time.Second
		h, _ := startHub(t, cfgOf(srv), &hub.Options{Upstream: opts})
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		callError(t, h, "crash", map[string]any{})
		msg := callError(t, h, "echo", map[string]any{"text": "anyone?"})
		for _, want := range []string{`server "phoenix"`, `tool "echo"`, "server is failed", "exited with status 7 during start-up: broken"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message %q lacks %q", msg, want)
			}
		}
		waitTools(t, h, "the failed server's tools to go", func(m map[string]tool.Tool) bool { return len(m) == 0 })
		if msg := callError(t, h, "echo", map[string]any{"text": "x"}); !strings.Contains(msg, "unknown tool") {
			t.Errorf("call after the tools went: %q", msg)
		}
	})

	t.Run("closed hub", func(t *testing.T) {
		t.Parallel()
		h, _ := startHub(t, cfgOf(testserver.Stdio(t, "ts")), nil)
		callText(t, h, "echo", map[string]any{"text": "open"})
		ch := h.Changed()
		if err := h.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		select {
		case <-ch:
		default:
			t.Error("Close did not signal Changed")
		}
		if _, err := h.Call(context.Background(), "echo", json.RawMessage(`{"text":"closed"}`)); !errors.Is(err, hub.ErrClosed) {
			t.Errorf("Call after Close: %v, want ErrClosed", err)
		}
		if _, err := h.Call(context.Background(), "nope", nil); !errors.Is(err, hub.ErrClosed) {
			t.Errorf("Call of an unknown tool after Close: %v, want ErrClosed", err)
		}
		if n := len(h.Tools()); n != 0 {
			t.Errorf("%d tools after Close", n)
		}
		if err := h.Start(context.Background()); !errors.Is(err, hub.ErrClosed) {
			t.Errorf("Start after Close: %v", err)
		}
		if err := h.Add(testserver.Stdio(t, "late")); !errors.Is(err, hub.ErrClosed) {
			t.Errorf("Add after Close: %v", err)
		}
		if err := h.Reload(cfgOf()); !errors.Is(err, hub.ErrClosed) {
			t.Errorf("Reload after Close: %v", err)
		}
		if st := stateOf(h, "ts"); st != upstream.Closed {
			t.Errorf("state after Close: %s", st)
		}
		if err := h.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
}

// proc is one line of /proc/PID/stat.
type proc struct {
	pid, ppid, pgrp int
	state           string
}

// procs reads the process table.
func procs(t *testing.T) map[int]proc {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	out := map[int]proc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		i := bytes.LastIndexByte(b, ')') // the command may contain spaces and parentheses
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:])) // state ppid pgrp ...
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		out[pid] = proc{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0]}
	}
	return out
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// 10. A server run through npx (npx → sh → node) leaves no process behind.
func TestNpxLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	testenv.NPMBin(t, testenv.ServerMemory)
	if _, err := exec.LookPath("npx"); err != nil {
		testenv.Missing(t, "npx is not on PATH: %v", err)
	}
	memFile := filepath.Join(t.TempDir(), "memory.jsonl")
	marker := "MEMORY_FILE_PATH=" + memFile // tells our child apart from any other
	srv := config.Server{
		Name: "memory", Transport: config.Stdio,
		// --no-install and offline: use testdata/npm/node_modules, never the network.
		Command: "npx", Args: []string{"--no-install", testenv.ServerMemory},
		Cwd: testenv.NPMDir(t), Env: map[string]string{"MEMORY_FILE_PATH": memFile, "npm_config_offline": "true"},
		InheritEnv: true, InitTimeout: 60 * time.Second, ToolTimeout: 30 * time.Second,
	}
	h, _ := startHub(t, cfgOf(srv), nil)
	if st, _ := status(h, "memory"); st.State != upstream.Ready {
		t.Fatalf("memory: %s (%s); stderr:\n%s", st.State, st.LastError, strings.Join(st.Stderr, "\n"))
	}
	callText(t, h, "create_entities", map[string]any{
		"entities": []map[string]any{{"name": "npx", "entityType": "launcher", "observations": []string{"spawns node"}}},
	})
	if got := callText(t, h, "read_graph", map[string]any{}); !strings.Contains(got, "spawns node") {
		t.Fatalf("read_graph = %q", got)
	}

	// The child is the test process's child carrying our marker; it leads its own
	// process group. Collect the group and every descendant.
	table := procs(t)
	leader := 0
	for _, p := range table {
		if p.ppid != os.Getpid() {
			continue
		}
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.pid))
		if slices.Contains(strings.Split(string(env), "\x00"), marker) {
			leader = p.pid
		}
	}
	if leader == 0 {
		t.Fatal("npx child not found among the test process's children")
	}
	tree := map[int]string{}
	for _, p := range table {
		in := p.pgrp == leader
		for q, hops := p, 0; !in && q.pid > 1 && hops < 64; q, hops = table[q.ppid], hops+1 {
			in = q.pid == leader
		}
		if in && p.state != "Z" {
			tree[p.pid] = cmdline(p.pid)
		}
	}
	node := false
	for _, c := range tree {
		node = node || (strings.HasPrefix(c, "node ") && strings.Contains(c, testenv.ServerMemory))
	}
	if len(tree) < 2 || !node {
		t.Fatalf("expected npx and its node grandchild, found %v", tree)
	}
	t.Logf("processes of the npx server: %v", tree)

	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	for pid, c := range tree {
		if testserver.ProcessAlive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d (%s) survived Close", pid, c)
		}
	}
}

// 11. Subscribers see every state change.
func TestSubscribe(t *testing.T) {
	t.Parallel()
	h, _ := newHub(t, cfgOf(testserver.Stdio(t, "watched")), nil)
	if st := stateOf(h, "watched"); st != upstream.Connecting {
		t.Errorf("state before Start: %s", st)
	}
	var mu sync.Mutex
	var events []upstream.Event
	cancel := h.Subscribe(func(e upstream.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	})
	var others atomic.Int32
	h.Subscribe(func(upstream.Event) { others.Add(1) })() // unsubscribed at once
	states := func() []upstream.State {
		mu.Lock()
		defer mu.Unlock()
		var out []upstream.State
		for _, e := range events {
			if e.Server != "watched" {
				t.Errorf("event of unknown server: %+v", e)
			}
			if len(out) == 0 || out[len(out)-1] != e.State {
				out = append(out, e.State)
			}
		}
		return out
	}

	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := states(); !slices.Equal(got, []upstream.State{upstream.Ready}) {
		t.Errorf("states after Start: %v", got)
	}
	mu.Lock()
	listed := slices.ContainsFunc(events, func(e upstream.Event) bool { return e.ToolsChanged && e.State == upstream.Ready })
	mu.Unlock()
	if !listed {
		t.Error("no ToolsChanged event for the initial listing")
	}

	// A killed process: reconnecting, then ready again.
	pid := pidOf(t, h, "pid")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	want := []upstream.State{upstream.Ready, upstream.Reconnecting, upstream.Ready}
	testenv.WaitFor(t, "reconnecting → ready events", 10*time.Second, func() bool { return slices.Equal(states(), want) })

	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	want = append(want, upstream.Closed)
	if got := states(); !slices.Equal(got, want) {
		t.Errorf("states = %v, want %v", got, want)
	}
	mu.Lock()
	last := events[len(events)-1]
	mu.Unlock()
	if last.State != upstream.Closed || last.Reason != "closed" {
		t.Errorf("last event = %+v", last)
	}
	cancel()
	if n := others.Load(); n != 0 {
		t.Errorf("an unsubscribed callback got %d events", n)
	}
}

// Naming "never" is about tools: two servers with the same prompts (and tools
// filtered apart) still serve their tools, and the prompts are named as under
// "auto": the second server's get prefixes.
func TestNeverNamingPromptCollision(t *testing.T) {
	t.Parallel()
	a := config.Server{Name: "a", Transport: config.Stdio, Command: testenv.EverythingServer(t), InitTimeout: 20 * time.Second,
		Tools: config.ToolFilter{Allow: []string{"test_simple_text"}}}
	b := a
	b.Name, b.Tools = "b", config.ToolFilter{Allow: []string{"test_image_content"}}
	cfg := cfgOf(a, b)
	cfg.Settings.Naming = config.NamingNever
	h, _ := startHub(t, cfg, nil)
	if n := len(h.Tools()); n != 2 {
		t.Errorf("%d tools, want 2", n)
	}
	var names []string
	for _, p := range h.Prompts() {
		names = append(names, p.Name)
	}
	if !slices.Contains(names, "test_simple_prompt") || !slices.Contains(names, "b__test_simple_prompt") {
		t.Errorf("prompts = %v", names)
	}

	// b's explicit prefix resolves the collision under "never" as it does for tools:
	// a keeps the plain names, and there is nothing to warn about.
	b.Prefix = "bp"
	cfg = cfgOf(a, b)
	cfg.Settings.Naming = config.NamingNever
	h, logs := startHub(t, cfg, nil)
	names = nil
	for _, p := range h.Prompts() {
		names = append(names, p.Name)
	}
	if !slices.Contains(names, "test_simple_prompt") || !slices.Contains(names, "bp__test_simple_prompt") {
		t.Errorf("prompts with b's prefix = %v", names)
	}
	if strings.Contains(logs.String(), "prompt names collide") {
		t.Errorf("warned of a collision that b's prefix resolves:\n%s", logs)
	}
}

// Resource URIs inside a tool's result lead back to the server that returned them:
// unchanged while the URI is the server's alone, the switchboard:// form once two
// servers list it, and a URI that is no resource of the server's passes through.
func TestResultURIsLeadBack(t *testing.T) {
	t.Parallel()
	const readme = "test://testserver/readme"
	uris := func(res *tool.Result) []string {
		var out []string
		for _, c := range res.Content {
			switch c := c.(type) {
			case *mcp.ResourceLink:
				out = append(out, c.URI)
			case *mcp.EmbeddedResource:
				out = append(out, c.Resource.URI)
			}
		}
		return out
	}

	alone, _ := startHub(t, cfgOf(testserver.Stdio(t, "a", "--resource-link")), nil)
	if got, want := uris(call(t, alone, "link", map[string]any{})), []string{readme, readme, "https://example.com/page"}; !slices.Equal(got, want) {
		t.Errorf("one server: URIs %v, want %v", got, want)
	}

	h, _ := startHub(t, cfgOf(testserver.Stdio(t, "a", "--resource-link"), testserver.Stdio(t, "b", "--resource-link")), nil)
	prefixed := hub.PrefixURI("b", readme)
	if got, want := uris(call(t, h, "b__link", map[string]any{})), []string{prefixed, prefixed, "https://example.com/page"}; !slices.Equal(got, want) {
		t.Fatalf("two servers: URIs %v, want %v", got, want)
	}
	res, err := h.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: prefixed})
	if err != nil {
		t.Fatal(err)
	}
	if want := "readme of pid " + callText(t, h, "b__pid", map[string]any{}); len(res.Contents) != 1 || res.Contents[0].Text != want || res.Contents[0].URI != prefixed {
		t.Errorf("read %s = %+v, want %q from b", prefixed, res.Contents, want)
	}
}

// TestServerFollowsReload: Server tells the configuration a server runs with now, so
// that per-server policies (an agent's approvals) follow a reload.
func TestServerFollowsReload(t *testing.T) {
	t.Parallel()
	a := testserver.Stdio(t, "a")
	h, _ := startHub(t, cfgOf(a), nil)
	if got, ok := h.Server("a"); !ok || got.NeedsApproval("pid") {
		t.Fatalf("Server(a) = %+v, %v; want a, found, approving nothing", got, ok)
	}
	guarded := a
	guarded.Approve = []string{"p*"}
	if err := h.Reload(cfgOf(guarded)); err != nil {
		t.Fatal(err)
	}
	if got, ok := h.Server("a"); !ok || !got.NeedsApproval("pid") {
		t.Errorf("after the reload Server(a).Approve = %q, %v; want [p*]", got.Approve, ok)
	}
	if _, ok := h.Server("nobody"); ok {
		t.Error("Server(nobody) found a server")
	}
}

// TestReadyMeansListed: a server's supervisor is ready a moment before the hub's
// catalog lists its tools. In that moment Status still reports the server as not
// ready, so that a health check that sees every server ready finds every tool.
func TestReadyMeansListed(t *testing.T) {
	t.Parallel()
	srv := testserver.Stdio(t, "one", "--tools", "only_here")
	h, _ := newHub(t, cfgOf(srv), nil)
	var mu sync.Mutex
	var inWindow []upstream.State
	hub.SetEventHook(h, func(e upstream.Event) {
		if e.State != upstream.Ready {
			return
		}
		// The supervisor says ready; the catalog has not been rebuilt yet.
		mu.Lock()
		defer mu.Unlock()
		inWindow = append(inWindow, stateOf(h, "one"))
		if _, listed := byName(h)["only_here"]; listed {
			t.Error("only_here listed before the rebuild that follows the ready event")
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(inWindow) == 0 {
		t.Fatal("no ready event reached the hook")
	}
	for _, st := range inWindow {
		if st == upstream.Ready {
			t.Errorf("Status said ready while the catalog lacked the server's tools")
		}
	}
	if st := stateOf(h, "one"); st != upstream.Ready {
		t.Errorf("after Start: %s, want ready", st)
	}
	if _, listed := byName(h)["only_here"]; !listed {
		t.Errorf("only_here not listed after Start: %v", namesOf(h))
	}
}

// A server a reload disables is told to the subscribers as disabled once its old
// connection's close has been: a disabled server never changes state on its own, so
// a dashboard showed it "closed" until the next snapshot.
func TestReloadDisabledIsTold(t *testing.T) {
	t.Parallel()
	srv := testserver.Stdio(t, "ts")
	h, _ := startHub(t, cfgOf(srv), nil)
	var mu sync.Mutex
	var states []upstream.State
	cancel := h.Subscribe(func(e upstream.Event) {
		if e.Server == "ts" {
			mu.Lock()
			states = append(states, e.State)
			mu.Unlock()
		}
	})
	defer cancel()
	off := srv
	off.Disabled = true
	if err := h.Reload(cfgOf(off)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(states) == 0 || states[len(states)-1] != upstream.Disabled {
		t.Errorf("the events of the disabled server = %v, want the last to be disabled", states)
	}
}
