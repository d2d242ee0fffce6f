package api_test

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// What issue 34 saw in the dashboard's screenshots, each in Chromium: a chat cut off
// after a few turns, sessions with the same title that cannot be told apart, a
// server's error shown twice, a resource read landing out of sight, and a long page
// with no way to jump between its parts.

// inView is a JavaScript function: whether element el is shown whole within the
// viewport, below the page's sticky header, and within every box that scrolls it.
const inView = `((el) => {
	if (!el) return false;
	const r = el.getBoundingClientRect();
	const head = document.querySelector("header");
	const top = head && getComputedStyle(head).position === "sticky" ? head.getBoundingClientRect().bottom : 0;
	if (r.height === 0 || r.top < top - 1 || r.bottom > innerHeight + 1) return false;
	for (let p = el.parentElement; p; p = p.parentElement) {
		if (!/(auto|scroll)/.test(getComputedStyle(p).overflowY)) continue;
		const b = p.getBoundingClientRect();
		if (r.top < b.top - 1 || r.bottom > b.bottom + 1) return false;
	}
	return true;
})`

// The chat log follows the conversation: after many turns, opened from the sessions'
// list or typed in the page, the last answer is in view, not cut off below the log's
// edge.
func TestDashboardChatScroll(t *testing.T) {
	ctx := browser(t)
	e := start(t, setup{model: true})
	id := sessionTurn(t, e, `call current_time {"zone": "UTC"}`)
	for i := 2; i <= 8; i++ {
		e.do("POST", "/v1/sessions/"+id+"/messages", map[string]string{"content": `call current_time {"zone": "Asia/Tokyo"}`}).want(t, http.StatusOK)
	}
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
	const last = `[...document.querySelectorAll("#chat-log .msg.assistant")].pop()`
	do(t, ctx, "opening the session of 8 turns", chromedp.Click(chromedp.CSS(`#sessions button[data-session="`+id+`"]`)))
	waitJS(t, ctx, "its history", `document.querySelectorAll("#chat-log .msg.assistant").length === 8`)
	if tall := eval[bool](t, ctx, `(l => l.scrollHeight > l.clientHeight)(document.getElementById("chat-log"))`); !tall {
		t.Fatal("8 turns fit in the chat log: the test shows nothing")
	}
	waitJS(t, ctx, "the last answer in view", inView+`(`+last+`)`)
	screenshot(t, ctx, "chat-opened")

	for i := 0; i < 3; i++ {
		do(t, ctx, "sending a message", chromedp.SendKeys(chromedp.CSS("#chat-input"), `call current_time {"zone": "Europe/Paris"}`+"\r"))
		waitJS(t, ctx, "the answer", `document.querySelectorAll("#chat-log .msg.assistant").length === `+strconv.Itoa(9+i)+` && !`+last+`.hasAttribute("aria-busy")`)
		if !eval[bool](t, ctx, inView+`(`+last+`)`) {
			screenshot(t, ctx, "chat-cut")
			t.Fatalf("after turn %d the last answer is not in view", 9+i)
		}
	}
	screenshot(t, ctx, "chat-followed")
}

// Sessions with the same title are told apart in the list: each shows its id and the
// date it was started.
func TestDashboardSessionsSameTitle(t *testing.T) {
	ctx := browser(t)
	e := start(t, setup{model: true})
	var ids []string
	for i := 0; i < 2; i++ {
		var s struct {
			ID string `json:"id"`
		}
		r := e.do("POST", "/v1/sessions", map[string]any{"metadata": map[string]string{"title": "What time is it?"}})
		r.want(t, http.StatusCreated)
		r.decode(t, &s)
		ids = append(ids, s.ID)
	}
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
	waitJS(t, ctx, "both sessions listed", shownSessions+`.length === 2`)
	rows := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll("#sessions button.open")].map(b => [b.dataset.session, b.innerText]))`)
	today := eval[string](t, ctx, `new Date().toLocaleDateString()`)
	for _, id := range ids {
		row := rows[id]
		if !strings.Contains(row, "What time is it?") || !strings.Contains(row, id) || !strings.Contains(row, today) {
			t.Errorf("session %s is listed as %q, want its title, its id and the date it started (%s)", id, row, today)
		}
	}
	if rows[ids[0]] == rows[ids[1]] {
		t.Errorf("two sessions listed alike: %q", rows[ids[0]])
	}
	screenshot(t, ctx, "sessions-same-title")
}

// A server's error is shown once on its card, short, the whole chain in a details
// element: not again, as long, in the card's history of changes.
func TestDashboardServerErrorOnce(t *testing.T) {
	ctx := browser(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/mcp"
	ln.Close() // nothing listens there: every connection is refused
	e := start(t, setup{servers: []config.Server{clockServer(t), {Name: "dead", Transport: config.HTTP, URL: dead}}})
	var srv struct{ State, Reason string }
	testenv.WaitFor(t, "dead failed", 30*time.Second, func() bool {
		e.do("GET", "/v1/servers/dead", nil).decode(t, &srv)
		return srv.State == "failed"
	})
	chain := srv.Reason
	if !strings.Contains(chain, "connection refused") || !strings.Contains(chain, ": ") {
		t.Fatalf("dead's reason %q, want an error chain ending in connection refused", chain)
	}
	card := `document.querySelector('article.server[data-server="dead"]')`
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
	waitJS(t, ctx, "dead failed", card+` && `+card+`.dataset.state === "failed"`)
	// A restart while the page is open: its changes come as events, into the history.
	e.do("POST", "/v1/servers/dead/restart", nil).want(t, http.StatusAccepted)
	waitJS(t, ctx, "the failure in dead's history", card+`.querySelectorAll(".history li").length >= 2 && `+card+`.dataset.state === "failed"`)
	got := eval[map[string]any](t, ctx, `(c => ({
		text: c.textContent,
		shown: c.innerText,
		reason: (c.querySelector(".reason") || {innerText: ""}).innerText,
		history: c.querySelector(".history").innerText,
	}))(`+card+`)`)
	if n := strings.Count(got["text"].(string), chain); n != 1 {
		t.Errorf("the card holds dead's error chain %d times, want once:\n%s", n, got["shown"])
	}
	if n := strings.Count(got["shown"].(string), "connection refused"); n != 1 {
		t.Errorf("the card shows %q %d times, want once:\n%s", "connection refused", n, got["shown"])
	}
	if reason := got["reason"].(string); len(reason) > 80 || !strings.Contains(reason, "connection refused") {
		t.Errorf("the card's error reads %q, want it short (80 characters at most) with its cause", reason)
	}
	if strings.Contains(got["history"].(string), "connection refused") {
		t.Errorf("the history repeats the error: %q", got["history"])
	}
	do(t, ctx, "opening the whole error", chromedp.Click(chromedp.CSS(`article.server[data-server="dead"] .reason summary`)))
	if whole := eval[string](t, ctx, card+`.querySelector(".reason").innerText`); !strings.Contains(whole, chain) {
		t.Errorf("the error's details show %q, want the whole chain %q", whole, chain)
	}
	screenshot(t, ctx, "server-error")
}

// A resource read shows its result where the person looks: in view right after the
// click, for a resource far down the list and for a template's Read.
func TestDashboardResourceReadInView(t *testing.T) {
	ctx := browser(t)
	e := start(t, setup{servers: []config.Server{extrasServer(t, "alpha", 5*time.Second), extrasServer(t, "beta", 5*time.Second), extrasServer(t, "gamma", 5*time.Second)}})
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
	const notes = `#res-list button[data-uri="switchboard://gamma/test://extras/notes.txt"]`
	waitJS(t, ctx, "the resources listed", `document.querySelector('`+notes+`') !== null && document.querySelectorAll("#res-templates form").length > 0`)
	const read = `document.querySelector("#res-view .res-read")`
	do(t, ctx, "opening gamma's notes.txt", chromedp.Click(chromedp.CSS(notes)))
	waitJS(t, ctx, "its text", `(p => p && p.textContent === "notes of gamma")(document.querySelector("#res-view pre.res-text"))`)
	if !eval[bool](t, ctx, inView+`(`+read+`)`) {
		screenshot(t, ctx, "read-out-of-view")
		t.Errorf("the read of notes.txt is not in view after the click")
	}
	screenshot(t, ctx, "read-in-view")

	const tmpl = `#res-templates form.template-form[data-template="switchboard://alpha/test://extras/items/{id}"]`
	do(t, ctx, "reading item 7 of alpha", chromedp.SendKeys(chromedp.CSS(tmpl+` input[name="id"]`), "7"),
		chromedp.Click(chromedp.CSS(tmpl+` button[type="submit"]`)))
	waitJS(t, ctx, "the item's text", `(p => p && p.textContent === "item 7 of alpha")(document.querySelector("#res-view pre.res-text"))`)
	if !eval[bool](t, ctx, inView+`(`+read+`)`) {
		screenshot(t, ctx, "template-read-out-of-view")
		t.Errorf("the template's read is not in view after Read")
	}
}

// The page has a navigation of its sections, reached first with the keyboard: each
// link, pressed with Enter, brings its section's heading into view (below the
// header that keeps the navigation on screen) and puts the section in the URL's
// hash; an address with that hash opens the page there.
func TestDashboardNav(t *testing.T) {
	ctx := browser(t)
	e := start(t, setup{model: true})
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
	waitJS(t, ctx, "the tools listed", `document.querySelectorAll("#tools button").length === 3`)
	links := eval[[]string](t, ctx, `[...document.querySelectorAll('header nav a[href^="#"]')].map(a => a.getAttribute("href"))`)
	sections := eval[[]string](t, ctx, `[...document.querySelectorAll("main > section")].map(s => "#" + s.id)`)
	if strings.Join(links, " ") != strings.Join(sections, " ") {
		t.Fatalf("the navigation links to %q, want every section in order %q", links, sections)
	}
	eval[bool](t, ctx, `document.activeElement.blur(), true`)
	do(t, ctx, "pressing Tab", chromedp.KeyEvent("\t"))
	if first := eval[string](t, ctx, `document.activeElement.closest("header nav") ? document.activeElement.getAttribute("href") : document.activeElement.outerHTML`); first != links[0] {
		t.Errorf("the first Tab reaches %q, want the navigation's first link %q", first, links[0])
	}
	// Backwards, so that each jump goes up the page as well as down.
	for i := len(links) - 1; i >= 0; i-- {
		href := links[i]
		eval[bool](t, ctx, `document.querySelector('header nav a[href="`+href+`"]').focus(), true`)
		do(t, ctx, "pressing Enter on "+href, chromedp.KeyEvent("\r"))
		waitJS(t, ctx, href+" in the URL", `location.hash === "`+href+`"`)
		waitJS(t, ctx, href+"'s heading in view", inView+`(document.querySelector("`+href+` h2"))`)
		// The mark follows the hash on its hashchange event, which comes after the
		// hash itself: waited for, not read at once.
		waitJS(t, ctx, href+" marked as the current section", `(a => a !== null && a.getAttribute("href") === "`+href+`")(document.querySelector('header nav a[aria-current="true"]'))`)
	}
	screenshot(t, ctx, "nav")

	do(t, ctx, "opening the page at #sessions-section", chromedp.Navigate(e.url+"/#sessions-section"))
	waitJS(t, ctx, "the sessions' heading in view", inView+`(document.querySelector("#sessions-section h2"))`)
}
