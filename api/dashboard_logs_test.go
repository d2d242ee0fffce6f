//go:build unix

package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// A server's log in the dashboard: the Log button opens it with the server's stderr
// (masked) and its state changes, styled apart; a line written meanwhile arrives
// live, its markup shown as text; Close ends the stream on the server's side.
func TestDashboardLogs(t *testing.T) {
	ctx := browser(t)
	e := start(t, setup{servers: []config.Server{chattyServer(t)}})
	e.say("booted with " + logSecret)
	testenv.WaitFor(t, "the line in the log", 5*time.Second, func() bool {
		return strings.Contains(e.do("GET", "/v1/servers/chatty/log", nil).body, "booted with")
	})
	card := `document.querySelector('article.server[data-server="chatty"]')`
	lines := `document.querySelector("dialog.log-view .log-lines")`
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
	waitJS(t, ctx, "the server ready", card+` && `+card+`.dataset.state === "ready"`)
	do(t, ctx, "opening the log", chromedp.Click(chromedp.CSS(`article.server[data-server="chatty"] button.log-open`)))

	waitJS(t, ctx, "the log open and live", `(d => d && d.open && d.dataset.live === "true")(document.querySelector("dialog.log-view"))`)
	waitJS(t, ctx, "the stderr line", lines+`.textContent.includes("booted with")`)
	if got := eval[string](t, ctx, lines+`.textContent`); strings.Contains(got, logSecret) {
		t.Errorf("the secret is on the page: %q", got)
	}
	ready := lines + `.querySelector('.log-state[data-state="ready"]')`
	waitJS(t, ctx, "the state change", ready+` !== null`)
	if got := eval[string](t, ctx, ready+`.textContent`); !strings.Contains(got, "connecting → ready") {
		t.Errorf("state row %q, want connecting → ready", got)
	}
	if fw := eval[string](t, ctx, `getComputedStyle(`+ready+`).fontWeight`); fw == eval[string](t, ctx, `getComputedStyle(`+lines+`.querySelector(".log-stderr")).fontWeight`) {
		t.Errorf("a state change looks as a stderr line does (font weight %s)", fw)
	}
	if title := eval[string](t, ctx, `document.getElementById("log-title").textContent`); title != "Log of chatty" {
		t.Errorf("title %q", title)
	}
	if n := api.LogStreams(e.srv); n != 1 {
		t.Errorf("%d log streams open, want 1", n)
	}

	e.say(`live <img src=x onerror="window.pwned=1"><b>bold</b>`)
	waitJS(t, ctx, "the live line", lines+`.textContent.includes("live <img")`)
	if n := eval[int](t, ctx, lines+`.querySelectorAll("img, b").length`); n != 0 {
		t.Errorf("a line's markup became %d elements", n)
	}
	if eval[bool](t, ctx, `window.pwned === 1`) {
		t.Error("a line's markup ran")
	}
	screenshot(t, ctx, "log")

	do(t, ctx, "closing the log", chromedp.Click(chromedp.CSS(`dialog.log-view button.log-close`)))
	waitJS(t, ctx, "the log closed", `!document.querySelector("dialog.log-view").open`)
	testenv.WaitFor(t, "the stream to end on the server", 10*time.Second, func() bool { return api.LogStreams(e.srv) == 0 })

	// Open again, then the server is restarted: the restart's changes arrive live.
	do(t, ctx, "opening the log again", chromedp.Click(chromedp.CSS(`article.server[data-server="chatty"] button.log-open`)))
	waitJS(t, ctx, "the log live again", `document.querySelector("dialog.log-view").dataset.live === "true"`)
	e.do("POST", "/v1/servers/chatty/restart", nil).want(t, http.StatusAccepted)
	waitJS(t, ctx, "the restart", lines+`.querySelector('.log-state[data-state="closed"]') !== null && `+
		lines+`.querySelectorAll('.log-state[data-state="ready"]').length === 2`)
	do(t, ctx, "closing with Escape", chromedp.KeyEvent("\x1b"))
	waitJS(t, ctx, "the log closed", `!document.querySelector("dialog.log-view").open`)
	testenv.WaitFor(t, "the stream to end on the server", 10*time.Second, func() bool { return api.LogStreams(e.srv) == 0 })
}
