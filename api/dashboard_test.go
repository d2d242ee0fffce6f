package api_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// The page and its assets are served without the token (they hold no data), with a
// policy that keeps the page to its own origin; anything else still needs the token.
func TestDashboardServed(t *testing.T) {
	t.Parallel()
	e := start(t, setup{opts: api.Options{Token: "dash-token"}})
	e.token = ""
	page := e.do("GET", "/", nil)
	page.want(t, http.StatusOK, `<script src="/dashboard/app.js"`, `href="/dashboard/style.css"`, `id="tool-search"`)
	if ct := page.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("page Content-Type %q", ct)
	}
	if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("page Content-Security-Policy %q", csp)
	}
	for path, ct := range map[string]string{"/dashboard/app.js": "text/javascript", "/dashboard/style.css": "text/css"} {
		r := e.do("GET", path, nil)
		if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), ct) || len(r.body) < 1000 {
			t.Errorf("GET %s: %d %q, %d bytes", path, r.status, r.header.Get("Content-Type"), len(r.body))
		}
	}
	e.do("GET", "/dashboard/nope.js", nil).want(t, http.StatusNotFound)
	e.do("GET", "/nope", nil).want(t, http.StatusUnauthorized)
	e.do("GET", "/v1/servers", nil).want(t, http.StatusUnauthorized)
}

// browser starts a headless Chromium for the test (Debian's chromium, or
// chromium-browser): skipped when there is none, failed when CI=true.
func browser(t testing.TB) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		testenv.Missing(t, "no chromium on PATH (Debian: apt-get install chromium)")
		return nil
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // root in CI containers: Chromium's sandbox refuses to run as root
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 1100),
		// Chromium keeps its singleton socket in a directory of its own under TMPDIR,
		// and leaves it behind when it is stopped: the test's own directory takes it.
		chromedp.Env("TMPDIR="+t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() {
		cancel() // closes the browser and waits for it
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// do runs browser actions, failing the test (with a screenshot) after 30 s.
func do(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		screenshot(t, ctx, "failed")
		t.Fatalf("%s: %v", what, err)
	}
}

// waitJS waits until the JavaScript expression is true on the page.
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	do(t, ctx, "waiting for "+what, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[bool](expr, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second))(ctx, tg)
		return err
	}))
}

// eval returns a JavaScript expression's value on the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// screenshot saves the page as NAME.png in the test's artifact directory (kept under
// the output directory with go test -artifacts).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	t.Logf("screenshot: %s", path)
}

// childPID is the pid of this process's child whose command line has every arg:
// the demo servers run as children of the test binary.
func childPID(t *testing.T, args ...string) int {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc to find the server's process: %v", err)
	}
	want := strings.Join(args, "\x00")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, so read after the last ')'.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if strings.Contains(string(cmd), want) {
			return pid
		}
	}
	t.Fatalf("no child process with %q", args)
	return 0
}

// The dashboard in a real browser, on the demo servers and the fake model: it loads
// and shows the servers ready, filters the tools, calls one through its form (and
// marks a failed call), follows a server through a crash, and runs a chat turn.
func TestDashboardBrowser(t *testing.T) {
	ctx := browser(t)
	t.Setenv(demo.NotesFileEnv, filepath.Join(t.TempDir(), "notes.json"))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := start(t, setup{servers: demo.Config(exe).Servers, model: true})
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))

	t.Run("servers ready", func(t *testing.T) {
		waitJS(t, ctx, "both demo servers ready",
			`document.querySelectorAll('article.server[data-state="ready"]').length === 2`)
		waitJS(t, ctx, "the live indicator", `document.getElementById("conn").dataset.state === "live"`)
		names := eval[[]string](t, ctx, `[...document.querySelectorAll("article.server h3")].map(h => h.textContent)`)
		if strings.Join(names, ",") != "clock,notes" {
			t.Errorf("servers shown: %v, want clock, notes", names)
		}
		waitJS(t, ctx, "the tools listed", `document.querySelectorAll("#tools button").length === 8`)
		if got := eval[string](t, ctx, `document.querySelector('article.server[data-server="clock"] .facts').textContent`); !strings.Contains(got, "3 tools") {
			t.Errorf("clock facts %q, want 3 tools", got)
		}
		if got := eval[string](t, ctx, `document.getElementById("chat-on").hidden ? "hidden" : "shown"`); got != "shown" {
			t.Errorf("chat panel %s with a model configured", got)
		}
		// Logged, not asserted: the machine's load decides it (the issue aims at 200 ms).
		fcp := eval[float64](t, ctx, `(performance.getEntriesByName("first-contentful-paint")[0] || {startTime: -1}).startTime`)
		t.Logf("first contentful paint after %.0f ms", fcp)
		screenshot(t, ctx, "servers-ready")
	})

	t.Run("search", func(t *testing.T) {
		do(t, ctx, "typing a search", chromedp.SendKeys(chromedp.CSS("#tool-search"), "zone"))
		waitJS(t, ctx, "the filtered list", `document.getElementById("tool-count").textContent.includes(" of 8")`)
		shown := eval[[]string](t, ctx, `[...document.querySelectorAll("#tools button")].map(b => b.dataset.tool)`)
		if len(shown) == 0 || len(shown) >= 8 || !contains(shown, "convert_time") || contains(shown, "put_note") {
			t.Errorf("tools shown for %q: %v, want the clock's zone tools only", "zone", shown)
		}
		screenshot(t, ctx, "search")
		// Enter in the search opens the first match's form and moves to its first field.
		first := shown[0]
		do(t, ctx, "pressing Enter in the search", chromedp.SendKeys(chromedp.CSS("#tool-search"), "\r"))
		waitJS(t, ctx, "the first match's form", `document.querySelector('form.tool-form[data-tool="`+first+`"]') !== null`)
		if in := eval[string](t, ctx, `document.activeElement.closest("form.tool-form") ? "form" : document.activeElement.id`); in != "form" {
			t.Errorf("focus after Enter: %q, want the form's first field", in)
		}
		if got := eval[string](t, ctx, `document.querySelector("form.tool-form .result-box").textContent`); got != "" {
			t.Errorf("Enter in the search called the tool (%q), want it only to open the form", got)
		}
		// "/" outside a text field goes back to the search.
		eval[bool](t, ctx, `document.activeElement.blur(), true`)
		do(t, ctx, "pressing /", chromedp.KeyEvent("/"))
		if id := eval[string](t, ctx, `document.activeElement.id`); id != "tool-search" {
			t.Errorf("focus after /: %q, want tool-search", id)
		}
		eval[bool](t, ctx, `(s => { s.value = ""; return s.dispatchEvent(new Event("input")) })(document.getElementById("tool-search"))`)
		waitJS(t, ctx, "the whole list again", `document.querySelectorAll("#tools button").length === 8`)
	})

	t.Run("required fields", func(t *testing.T) {
		form := `form.tool-form[data-tool="convert_time"]`
		do(t, ctx, "sending the convert_time form empty",
			chromedp.Click(chromedp.CSS(`#tools button[data-tool="convert_time"]`)),
			chromedp.WaitVisible(chromedp.CSS(form)),
			chromedp.Click(chromedp.CSS(form+` button[type="submit"]`)))
		waitJS(t, ctx, "the message beside each required field", `!document.getElementById("arg-convert_time-time-error").hidden`)
		shown := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('`+form+` .field-error:not([hidden])')].map(p => [p.id, p.textContent]))`)
		if len(shown) != 2 || !strings.Contains(shown["arg-convert_time-time-error"], "Required: give time a value") ||
			!strings.Contains(shown["arg-convert_time-to-error"], "Required: give to a value") {
			t.Errorf("messages shown %v, want one beside time and one beside to (from is optional)", shown)
		}
		if id := eval[string](t, ctx, `document.activeElement.id`); id != "arg-convert_time-time" {
			t.Errorf("focus on %q, want the first required field left empty", id)
		}
		screenshot(t, ctx, "required-fields")

		do(t, ctx, "filling time only", chromedp.SendKeys(chromedp.CSS("#arg-convert_time-time"), "2026-01-02T03:04:05Z"),
			chromedp.Click(chromedp.CSS(form+` button[type="submit"]`)))
		waitJS(t, ctx, "the time's message gone", `document.getElementById("arg-convert_time-time-error").hidden`)
		if msg := eval[string](t, ctx, `(p => p.hidden ? "" : p.textContent)(document.getElementById("arg-convert_time-to-error"))`); msg == "" {
			t.Errorf("no message beside the empty required field to")
		}

		// Arguments as JSON are checked against the same list.
		do(t, ctx, "giving arguments as JSON without to",
			chromedp.Click(chromedp.CSS(form+" details summary")),
			chromedp.SendKeys(chromedp.CSS("#raw-convert_time"), `{"time": "2026-01-02T03:04:05Z"}`),
			chromedp.Click(chromedp.CSS(form+` button[type="submit"]`)))
		waitJS(t, ctx, "the message beside the JSON", `!document.getElementById("raw-convert_time-error").hidden`)
		if msg := eval[string](t, ctx, `document.getElementById("raw-convert_time-error").textContent`); msg != "Required argument missing: to" {
			t.Errorf("message beside the JSON %q", msg)
		}
		if got := eval[string](t, ctx, `document.querySelector('`+form+` .result-box').textContent`); got != "" {
			t.Errorf("the form shows %q, want nothing sent", got)
		}
		var calls struct {
			Calls []eventCall `json:"calls"`
		}
		e.do("GET", "/v1/calls", nil).decode(t, &calls)
		if len(calls.Calls) != 0 {
			t.Errorf("calls made: %+v, want none sent without its required arguments", calls.Calls)
		}
	})

	t.Run("call", func(t *testing.T) {
		do(t, ctx, "filling the convert_time form",
			chromedp.Click(chromedp.CSS(`#tools button[data-tool="convert_time"]`)),
			chromedp.WaitVisible(chromedp.CSS(`form.tool-form[data-tool="convert_time"]`)),
			chromedp.SendKeys(chromedp.CSS("#arg-convert_time-time"), "2026-01-02T03:04:05Z"),
			chromedp.SendKeys(chromedp.CSS("#arg-convert_time-to"), "Asia/Tokyo"),
			chromedp.Click(chromedp.CSS(`form.tool-form button[type="submit"]`)))
		waitJS(t, ctx, "the result", `!!document.querySelector(".result .result-text")`)
		res := eval[string](t, ctx, `document.querySelector(".result").textContent`)
		if !strings.Contains(res, "2026-01-02T12:04:05+09:00") || strings.Contains(res, "Error") {
			t.Errorf("result shown: %q, want the time in Tokyo", res)
		}
		waitJS(t, ctx, "the call in the recent calls", `document.querySelector("#calls tbody tr") && document.querySelector("#calls tbody tr").textContent.includes("convert_time")`)
		screenshot(t, ctx, "call")

		do(t, ctx, "calling with a bad zone",
			chromedp.SetValue(chromedp.CSS("#arg-convert_time-to"), "Mars/Olympus"),
			chromedp.Click(chromedp.CSS(`form.tool-form button[type="submit"]`)))
		waitJS(t, ctx, "the error result", `!!document.querySelector(".result.is-error")`)
		if res := eval[string](t, ctx, `document.querySelector(".result.is-error").textContent`); !strings.Contains(res, "Error result") || !strings.Contains(res, "Mars/Olympus") {
			t.Errorf("error result shown: %q", res)
		}
		waitJS(t, ctx, "the failed call in the recent calls", `document.querySelector("#calls tbody tr.is-error") !== null`)
		screenshot(t, ctx, "call-error")
	})

	t.Run("reconnect", func(t *testing.T) {
		pid := childPID(t, "demo-server", "clock")
		p, err := os.FindProcess(pid)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Kill(); err != nil {
			t.Fatalf("killing the clock server (%d): %v", pid, err)
		}
		clock := `document.querySelector('article.server[data-server="clock"]')`
		waitJS(t, ctx, "the clock server reconnecting", clock+`.querySelector(".history").textContent.includes("reconnecting")`)
		screenshot(t, ctx, "reconnecting")
		waitJS(t, ctx, "the clock server ready again", clock+`.dataset.state === "ready" && `+clock+`.querySelector(".facts").textContent.includes("1 restart")`)
		hist := eval[string](t, ctx, clock+`.querySelector(".history").textContent`)
		if !strings.Contains(hist, "reconnecting") || !strings.Contains(hist, "ready") {
			t.Errorf("clock's history: %q", hist)
		}
		screenshot(t, ctx, "ready-again")
	})

	t.Run("chat", func(t *testing.T) {
		do(t, ctx, "sending a message",
			chromedp.SendKeys(chromedp.CSS("#chat-input"), `call current_time {"zone": "UTC"}`),
			chromedp.Click(chromedp.CSS("#chat-send")))
		waitJS(t, ctx, "the answer", `[...document.querySelectorAll(".msg.assistant .body")].some(b => b.textContent.includes("current_time:"))`)
		steps := eval[string](t, ctx, `document.querySelector(".msg.assistant").textContent`)
		if !strings.Contains(steps, "→ current_time") || !strings.Contains(steps, "← current_time") {
			t.Errorf("the turn's tool call is not shown: %q", steps)
		}
		waitJS(t, ctx, "the session's call in the recent calls", `document.querySelector("#calls tbody tr").textContent.includes("session")`)
		if got := eval[string](t, ctx, `document.getElementById("chat-session").textContent`); !strings.HasPrefix(got, "session ") {
			t.Errorf("session shown: %q", got)
		}
		screenshot(t, ctx, "chat")
	})
}

// A server that keeps crashing shows as flapping, not as a ready badge with a growing
// restart count.
func TestDashboardFlapping(t *testing.T) {
	ctx := browser(t)
	e := start(t, setup{servers: []config.Server{testserver.Stdio(t, "ts")}})
	card := `document.querySelector('article.server[data-server="ts"]')`
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
	waitJS(t, ctx, "the server ready", card+` && `+card+`.dataset.state === "ready"`)
	for i := 1; i <= 3; i++ {
		e.do("POST", "/v1/tools/crash/call", nil) // the server exits: the call fails
		testenv.WaitFor(t, "the server ready again", 30*time.Second, func() bool {
			var srv eventServer
			e.do("GET", "/v1/servers/ts", nil).decode(t, &srv)
			return srv.State == "ready" && srv.Restarts == i
		})
		if i == 1 {
			waitJS(t, ctx, "one restart shown", card+`.querySelector(".facts").textContent.includes("1 restart")`)
			if badge := eval[string](t, ctx, card+`.querySelector(".state").textContent`); badge != "ready" {
				t.Errorf("badge %q after one crash, want ready", badge)
			}
		}
	}
	waitJS(t, ctx, "the flapping badge", card+`.querySelector(".state").textContent === "flapping" && `+card+`.dataset.flapping === "true"`)
	if facts := eval[string](t, ctx, card+`.querySelector(".facts").textContent`); !strings.Contains(facts, "flapping: 3 restarts in 5 min") {
		t.Errorf("facts %q, want the restarts that make it flapping", facts)
	}
	if title := eval[string](t, ctx, card+`.querySelector(".state").title`); !strings.Contains(title, "ready, but it lost its connection 3 times") {
		t.Errorf("badge title %q", title)
	}
	screenshot(t, ctx, "flapping")
}

// A call that needs approval shows Allow and Deny in the chat; allowing it lets the
// turn go on.
func TestDashboardApproval(t *testing.T) {
	ctx := browser(t)
	clock := clockServer(t)
	clock.Approve = []string{"current_time"}
	e := start(t, setup{servers: []config.Server{clock}, model: true})
	do(t, ctx, "opening the page and sending a message", chromedp.Navigate(e.url+"/"),
		chromedp.WaitVisible(chromedp.CSS("#chat-input")),
		chromedp.SendKeys(chromedp.CSS("#chat-input"), `call current_time {"zone": "UTC"}`+"\r"))
	waitJS(t, ctx, "the approval request", `document.activeElement.dataset.decision === "allow"`)
	if got := eval[string](t, ctx, `document.querySelector(".msg.assistant").textContent`); !strings.Contains(got, "current_time needs your approval") {
		t.Errorf("approval request shown as %q", got)
	}
	screenshot(t, ctx, "approval")
	do(t, ctx, "allowing the call", chromedp.KeyEvent("\r"))
	waitJS(t, ctx, "the answer", `document.querySelector(".msg.assistant .body").textContent.includes("current_time:")`)
	// The decision's answer and the turn's stream race: the turn may finish before
	// the page has read the answer to its POST, so "allowed" is waited for too.
	waitJS(t, ctx, "the decision shown", `document.querySelector(".msg.assistant").textContent.includes("allowed")`)
	screenshot(t, ctx, "approved")
}

// onePixelPNG is a 1×1 PNG.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

// A tool's image result is shown as an image (the page's policy lets data: images
// in), not as text.
func TestDashboardImage(t *testing.T) {
	ctx := browser(t)
	server := mcp.NewServer(&mcp.Implementation{Name: "pictures", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "pixel", Description: "a one-pixel image"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		data, err := base64.StdEncoding.DecodeString(onePixelPNG)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "here it is"}, &mcp.ImageContent{MIMEType: "image/png", Data: data}}}, nil, err
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(hs.Close)
	e := start(t, setup{servers: []config.Server{{Name: "pictures", Transport: config.HTTP, URL: hs.URL}}})
	do(t, ctx, "calling pixel", chromedp.Navigate(e.url+"/"),
		chromedp.Click(chromedp.CSS(`#tools button[data-tool="pixel"]`)),
		chromedp.Click(chromedp.CSS(`form.tool-form[data-tool="pixel"] button[type="submit"]`)))
	waitJS(t, ctx, "the image shown", `(i => i && i.complete && i.naturalWidth === 1)(document.querySelector(".result img"))`)
	if alt := eval[string](t, ctx, `document.querySelector(".result img").alt`); alt != "image result (image/png)" {
		t.Errorf("image alt %q", alt)
	}
	if text := eval[string](t, ctx, `document.querySelector(".result .result-text").textContent`); text != "here it is" {
		t.Errorf("text block shown as %q", text)
	}
	screenshot(t, ctx, "image")
}

// With a token, the page asks for it, keeps it for the tab and sends it: the servers
// show once it is given, and a wrong one is said to be wrong.
func TestDashboardToken(t *testing.T) {
	ctx := browser(t)
	const token = "page-s3cret-token"
	e := start(t, setup{opts: api.Options{Token: token}})
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"),
		chromedp.WaitVisible(chromedp.CSS("#token-form")))
	if st := eval[string](t, ctx, `document.getElementById("conn").dataset.state`); st != "token" {
		t.Errorf("connection state %q before the token, want token", st)
	}
	do(t, ctx, "giving a wrong token", chromedp.SendKeys(chromedp.CSS("#token"), "wrong\r"))
	waitJS(t, ctx, "the wrong token refused", `document.getElementById("token-error").textContent.includes("refused")`)
	screenshot(t, ctx, "wrong-token")
	do(t, ctx, "giving the token", chromedp.SendKeys(chromedp.CSS("#token"), token+"\r"))
	waitJS(t, ctx, "the clock server ready", `document.querySelector('article.server[data-server="clock"][data-state="ready"]') !== null`)
	waitJS(t, ctx, "the tools listed", `document.querySelectorAll("#tools button").length === 3`)
	if kept := eval[string](t, ctx, `sessionStorage.getItem("switchboard.token")`); kept != token {
		t.Errorf("sessionStorage has %q", kept)
	}
	if got := eval[string](t, ctx, `document.getElementById("chat-help").textContent`); !strings.Contains(got, `"switchboard": {"model": {`) {
		t.Errorf("without a model the chat panel says %q, want how to configure one", got)
	}
	screenshot(t, ctx, "token")
	if strings.Contains(e.logs.String(), token) {
		t.Errorf("the token is in the log")
	}
}

// Opened at the address serve prints when it made its token (/#token=…), the page
// uses that token at once, keeps it for the tab (a reload still works), and drops it
// from the address bar and the tab's history; it never reaches the server's log.
func TestDashboardTokenInURL(t *testing.T) {
	ctx := browser(t)
	const token = "URLTOKEN7ABCDEFGHIJK2345"
	e := start(t, setup{opts: api.Options{Token: token}})
	do(t, ctx, "opening the printed address", chromedp.Navigate(e.url+"/#token="+token))
	waitJS(t, ctx, "the clock server ready", `document.querySelector('article.server[data-server="clock"][data-state="ready"]') !== null`)
	if shown := eval[bool](t, ctx, `!document.getElementById("token-form").hidden`); shown {
		t.Error("the page asks for a token it was given")
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if loc != e.url+"/" {
		t.Errorf("the address bar shows %q, want %q", loc, e.url+"/")
	}
	if kept := eval[string](t, ctx, `sessionStorage.getItem("switchboard.token")`); kept != token {
		t.Errorf("sessionStorage has %q", kept)
	}
	hist, err := chromedp.Run(ctx, chromedp.NavigationEntries())
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range hist.Entries {
		if strings.Contains(entry.URL, token) {
			t.Errorf("the tab's history has %q", entry.URL)
		}
	}
	do(t, ctx, "reloading", chromedp.Reload())
	waitJS(t, ctx, "the clock server ready after a reload", `document.querySelector('article.server[data-server="clock"][data-state="ready"]') !== null`)
	if strings.Contains(e.logs.String(), token) {
		t.Errorf("the token is in the server's log")
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// A server's question during a chat turn shows as a form in the chat: its message as
// text (never HTML), its defaults filled in, choices as selects, multiple choices and
// booleans as checkboxes; a required field left empty is said beside it before anything is
// sent, a value the server's form refuses is said beside its field, and the answer
// reaches the server. A URL-mode question shows the page as a link; opening it
// accepts.
func TestDashboardQuestion(t *testing.T) {
	ctx := browser(t)
	e := start(t, setup{servers: []config.Server{askServer(t)}, model: true, ask: true})
	q := `[...document.querySelectorAll(".question")].pop()`
	do(t, ctx, "opening the page and sending a message", chromedp.Navigate(e.url+"/"),
		chromedp.WaitVisible(chromedp.CSS("#chat-input")),
		chromedp.SendKeys(chromedp.CSS("#chat-input"), `call ask {"message": "Who are <b>you</b>?"}`+"\r"))
	waitJS(t, ctx, "the form", `document.querySelector(".question-form") !== null`)
	id := eval[string](t, ctx, q+`.dataset.request`)
	field := func(name string) string { return `document.getElementById("in-` + id + `-` + name + `")` }
	if got := eval[string](t, ctx, q+`.querySelector(".question-message").textContent`); got != "Who are <b>you</b>?" {
		t.Errorf("message shown as %q", got)
	}
	if n := eval[int](t, ctx, q+`.querySelectorAll("b").length`); n != 0 {
		t.Errorf("the server's message became HTML: %d <b> elements", n)
	}
	shown := eval[map[string]string](t, ctx, `({
		color: `+field("color")+`.tagName + " " + `+field("color")+`.value,
		size: `+field("size")+`.tagName + " " + `+field("size")+`.value + " " + `+field("size")+`.selectedOptions[0].textContent,
		count: `+field("count")+`.type + " " + `+field("count")+`.value,
		subscribe: `+field("subscribe")+`.type + " " + `+field("subscribe")+`.checked,
		name: `+field("name")+`.type + " [" + `+field("name")+`.value + "]",
		focus: document.activeElement.id,
		label: document.querySelector('label[for="in-`+id+`-color"]').textContent,
	})`)
	want := map[string]string{
		"color": `SELECT "green"`, "size": `SELECT "l" Large`, "count": "number 3", "subscribe": "checkbox true",
		"name": "text []", "focus": "in-" + id + "-name", "label": "Favourite colour",
	}
	for k, v := range want {
		if shown[k] != v {
			t.Errorf("%s shown as %q, want %q", k, shown[k], v)
		}
	}
	screenshot(t, ctx, "question")

	do(t, ctx, "submitting without the name", chromedp.Click(chromedp.CSS(".question-form button[type=submit]")))
	waitJS(t, ctx, "the message beside the name", `!document.getElementById("in-`+id+`-name-error").hidden`)
	sess := strings.TrimPrefix(eval[string](t, ctx, `document.getElementById("chat-session").textContent`), "session ")
	e.do("GET", "/v1/sessions/"+sess, nil).want(t, 200, `"requestId": "`+id+`"`) // nothing was sent: it still waits

	do(t, ctx, "filling the form with a count too large",
		chromedp.SendKeys(chromedp.CSS("#in-"+id+"-name"), "ada"),
		chromedp.Click(chromedp.CSS("#in-"+id+"-subscribe")),
		chromedp.SetValue(chromedp.CSS("#in-"+id+"-count"), "99"),
		chromedp.Click(chromedp.CSS(".question-form button[type=submit]")))
	waitJS(t, ctx, "the server's check beside count", `!document.getElementById("in-`+id+`-count-error").hidden`)
	if msg := eval[string](t, ctx, `document.getElementById("in-`+id+`-count-error").textContent`); !strings.Contains(msg, "maximum: 99 is greater than 10") {
		t.Errorf("beside count: %q", msg)
	}
	screenshot(t, ctx, "question-refused")
	do(t, ctx, "correcting the count", chromedp.SetValue(chromedp.CSS("#in-"+id+"-count"), "4"),
		chromedp.Click(chromedp.CSS(".question-form button[type=submit]")))
	waitJS(t, ctx, "the answer's result", `document.querySelector(".msg.assistant").textContent.includes("action=accept")`)
	if got := eval[string](t, ctx, `document.querySelector(".msg.assistant").textContent`); !strings.Contains(got, `action=accept content={"color":"green","count":4,"name":"ada","size":"l","subscribe":false}`) {
		t.Errorf("the turn shows %q, want the form's answer as the server got it", got)
	}
	waitJS(t, ctx, "the form closed", q+`.querySelector("button[type=submit]").disabled && `+q+`.querySelector(".question-status").textContent === "sent"`)
	screenshot(t, ctx, "question-answered")

	// A multiple choice is a group of checkboxes, its default checked.
	do(t, ctx, "asking a multiple choice", chromedp.SendKeys(chromedp.CSS("#chat-input"),
		`call ask {"schema": {"type": "object", "properties": {"days": {"type": "array", "title": "Days", "items": {"type": "string", "enum": ["mon", "tue", "wed"]}, "default": ["tue"]}}}}`+"\r"))
	waitJS(t, ctx, "the checkboxes", `document.querySelectorAll(".question").length === 2 && `+q+`.querySelectorAll(".choices input[type=checkbox]").length === 3`)
	if got := eval[string](t, ctx, `[...`+q+`.querySelectorAll(".choices input")].map(c => c.dataset.value + ":" + c.checked).join(" ")`); got != `"mon":false "tue":true "wed":false` {
		t.Errorf("the choices shown: %s", got)
	}
	eval[bool](t, ctx, `(q => { q.querySelectorAll(".choices input")[2].click(); q.querySelector("button[type=submit]").click(); return true })(`+q+`)`)
	waitJS(t, ctx, "the answer's result", `[...document.querySelectorAll(".msg.assistant")].pop().textContent.includes("action=accept")`)
	if got := eval[string](t, ctx, `[...document.querySelectorAll(".msg.assistant")].pop().textContent`); !strings.Contains(got, `action=accept content={"days":["tue","wed"]}`) {
		t.Errorf("the turn shows %q, want both days", got)
	}

	page := e.url + "/healthz" // a page that loads here, in place of a sign-in elsewhere
	do(t, ctx, "asking to open a page", chromedp.SendKeys(chromedp.CSS("#chat-input"), `call ask {"url": "`+page+`"}`+"\r"))
	waitJS(t, ctx, "the link", `document.querySelectorAll(".question-link").length === 1`)
	link := eval[map[string]string](t, ctx, `(a => ({href: a.href, text: a.textContent, target: a.target, rel: a.rel, host: a.closest(".question").querySelector(".question-host").textContent}))(document.querySelector(".question-link"))`)
	host := strings.TrimPrefix(e.url, "http://")
	if link["href"] != page || link["text"] != page || link["target"] != "_blank" || !strings.Contains(link["rel"], "noopener") || link["host"] != host {
		t.Errorf("link %v, want %s opened apart, its host %s shown", link, page, host)
	}
	screenshot(t, ctx, "question-url")
	do(t, ctx, "opening the link", chromedp.Click(chromedp.CSS(".question-link")))
	waitJS(t, ctx, "the answer's result", `[...document.querySelectorAll(".msg.assistant")].pop().textContent.includes("action=accept content=null")`)
}
