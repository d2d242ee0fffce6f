//go:build unix

package hub_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/tool"
)

// TestJoiningKeepsRunningNames: under naming "auto", a server that joins a running
// hub (a reload, Add, a new tool of list_changed) never renames a tool a running
// server exposes; the newcomer's colliding tools take the prefix, and a warning names
// them. Before, memory's create_entities became memory__create_entities when another
// server with create_entities was added, and a client holding the name lost it.
func TestJoiningKeepsRunningNames(t *testing.T) {
	t.Parallel()
	memory := testserver.Stdio(t, "memory", "--tools", "create_entities")
	kg := testserver.Stdio(t, "kg", "--tools", "create_entities,only_kg")
	h, logs := startHub(t, cfgOf(memory), nil)
	memoryPID := pidOf(t, h, "pid")

	// A reload adds kg: memory's names stay, kg's colliding tools are prefixed.
	if err := h.Reload(cfgOf(memory, kg)); err != nil {
		t.Fatal(err)
	}
	waitTools(t, h, "kg's tools", func(m map[string]tool.Tool) bool { _, ok := m["only_kg"]; return ok })
	checkCatalog(t, h)
	want := map[string]string{ // exposed → server
		"create_entities": "memory", "echo": "memory", "pid": "memory",
		"kg__create_entities": "kg", "kg__echo": "kg", "kg__pid": "kg", "only_kg": "kg",
	}
	names := byName(h)
	for name, server := range want {
		if tl, ok := names[name]; !ok || tl.Server != server {
			t.Errorf("%s: %+v, %v; want it on %s; catalog %v", name, tl, ok, server, namesOf(h))
		}
	}
	if pid := pidOf(t, h, "pid"); pid != memoryPID {
		t.Errorf("pid reaches process %d, not memory's %d", pid, memoryPID)
	}
	warned := logs.String()
	for _, w := range []string{`tools prefixed`, "server=kg", `create_entities → kg__create_entities (\"memory\" has create_entities)`} {
		if !strings.Contains(warned, w) {
			t.Errorf("the log lacks %q:\n%s", w, warned)
		}
	}
	if strings.Contains(warned, "only_kg →") {
		t.Errorf("the warning names a tool that kept its name:\n%s", warned)
	}

	// Add: the same for a server added directly.
	if err := h.Add(testserver.Stdio(t, "third", "--tools", "only_third")); err != nil {
		t.Fatal(err)
	}
	waitTools(t, h, "third's tools", func(m map[string]tool.Tool) bool { _, ok := m["only_third"]; return ok })
	if tl, ok := h.Lookup("create_entities"); !ok || tl.Server != "memory" {
		t.Errorf("create_entities after Add: %+v, %v; catalog %v", tl, ok, namesOf(h))
	}
	if _, ok := h.Lookup("third__create_entities"); ok {
		t.Errorf("third has no create_entities: %v", namesOf(h))
	}
	if _, ok := h.Lookup("third__echo"); !ok {
		t.Errorf("third's echo not prefixed: %v", namesOf(h))
	}

	// A tool a running server adds (list_changed) that another running server
	// already exposes is the newcomer too.
	callText(t, h, "kg__add_tool", map[string]any{"name": "only_third"})
	waitTools(t, h, "kg's new tool", func(m map[string]tool.Tool) bool { _, ok := m["kg__only_third"]; return ok })
	if tl, ok := h.Lookup("only_third"); !ok || tl.Server != "third" {
		t.Errorf("only_third after kg added one: %+v, %v", tl, ok)
	}

	// A restarted server comes back under the names it had; a removed one's names
	// are free, and the others keep theirs (kg__echo stays kg__echo).
	if err := h.Restart("memory"); err != nil {
		t.Fatal(err)
	}
	waitTools(t, h, "memory back", func(m map[string]tool.Tool) bool { tl, ok := m["create_entities"]; return ok && tl.Server == "memory" })
	if err := h.Reload(cfgOf(kg)); err != nil {
		t.Fatal(err)
	}
	checkCatalog(t, h)
	got := namesOf(h)
	for _, name := range []string{"kg__create_entities", "kg__echo", "only_kg", "kg__only_third"} {
		if !slices.Contains(got, name) {
			t.Errorf("%s renamed when memory and third left: %v", name, got)
		}
	}
}

// TestSlowServerJoinsAfterStart: a server that comes up past its init timeout joins
// a catalog already in use: it takes the prefix for the names the others expose.
func TestSlowServerJoinsAfterStart(t *testing.T) {
	t.Parallel()
	early := testserver.Stdio(t, "early", "--tools", "early_tool")
	// Its first attempt hangs past the init timeout; the next one serves.
	flag := filepath.Join(t.TempDir(), "tried")
	slow := config.Server{Name: "slow", Transport: config.Stdio, Command: "/bin/sh", InheritEnv: true,
		Args:        []string{"-c", `if [ -e "$1" ]; then exec "$2" --tools slow_tool; fi; touch "$1"; exec sleep 30`, "sh", flag, testserver.Build(t)},
		InitTimeout: 500 * time.Millisecond, ToolTimeout: 10 * time.Second}
	h, logs := startHub(t, cfgOf(slow, early), nil)
	if _, ok := h.Lookup("echo"); !ok {
		t.Fatalf("early's echo not listed after Start: %v", namesOf(h))
	}
	waitTools(t, h, "slow's tools", func(m map[string]tool.Tool) bool { _, ok := m["slow_tool"]; return ok })
	checkCatalog(t, h)
	names := byName(h)
	for name, server := range map[string]string{"echo": "early", "early_tool": "early", "slow__echo": "slow", "slow_tool": "slow"} {
		if tl, ok := names[name]; !ok || tl.Server != server {
			t.Errorf("%s: %+v, %v; want it on %s; catalog %v", name, tl, ok, server, namesOf(h))
		}
	}
	if w := `echo → slow__echo (\"early\" has echo)`; !strings.Contains(logs.String(), w) {
		t.Errorf("the log lacks %q:\n%s", w, logs)
	}
}

// TestFreshStartNamesByConfigOrder: a fresh start names by the config: of the
// servers that share a tool name, the one listed first keeps it and the others are
// prefixed, whichever is ready first (kg takes 300 ms more to start), so a restart
// names as the reload that added the later server did.
func TestFreshStartNamesByConfigOrder(t *testing.T) {
	t.Parallel()
	memory := testserver.Stdio(t, "memory", "--tools", "create_entities")
	slow := testserver.Stdio(t, "kg", "--tools", "create_entities", "--init-delay", "300ms")
	for _, order := range [][2]string{{"memory", "kg"}, {"kg", "memory"}} {
		cfg := cfgOf(memory, slow)
		if order[0] == "kg" {
			cfg = cfgOf(slow, memory)
		}
		h, _ := startHub(t, cfg, nil)
		names := byName(h)
		first, second := order[0], order[1]
		for name, server := range map[string]string{"create_entities": first, "echo": first,
			second + "__create_entities": second, second + "__echo": second} {
			if tl, ok := names[name]; !ok || tl.Server != server {
				t.Errorf("order %v: %s = %+v, %v; want %s's: %v", order, name, tl, ok, server, namesOf(h))
			}
		}
		if _, ok := names[first+"__create_entities"]; ok {
			t.Errorf("order %v: the first server's create_entities is prefixed", order)
		}
	}
}

// TestJoiningKeepsPromptNames: prompts are named as tools are, so a server that
// joins does not rename a running server's prompts either.
func TestJoiningKeepsPromptNames(t *testing.T) {
	t.Parallel()
	a := config.Server{Name: "a", Transport: config.Stdio, Command: testenv.EverythingServer(t), InitTimeout: 20 * time.Second,
		Tools: config.ToolFilter{Allow: []string{"test_simple_text"}}}
	b := a
	b.Name, b.Tools = "b", config.ToolFilter{Allow: []string{"test_image_content"}}
	h, _ := startHub(t, cfgOf(a), nil)
	if err := h.Reload(cfgOf(a, b)); err != nil {
		t.Fatal(err)
	}
	waitTools(t, h, "b's tool", func(m map[string]tool.Tool) bool { _, ok := m["test_image_content"]; return ok })
	var names []string
	for _, p := range h.Prompts() {
		names = append(names, p.Name)
	}
	if !slices.Contains(names, "test_simple_prompt") || !slices.Contains(names, "b__test_simple_prompt") || slices.Contains(names, "a__test_simple_prompt") {
		t.Errorf("prompts after b joined: %v; want a's unprefixed, b's prefixed", names)
	}
}
