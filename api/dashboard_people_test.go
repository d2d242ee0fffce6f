package api_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// hostile is markup a person's subject, a name or a session's title may hold: the
// dashboard shows it as text.
const (
	hostile     = `<img src=x onerror=alert(1)>`
	hostileName = `<b>Mallory</b>`
)

// dashboardPeople is testPeople plus "mallory-token", a person whose subject and
// name are markup.
func dashboardPeople(r *http.Request) (identity.Person, error) {
	if r.Header.Get("Authorization") == "Bearer mallory-token" {
		return identity.Person{Subject: hostile, Name: hostileName}, nil
	}
	return testPeople(r)
}

// startPeopleHost is startHost with a model: servers under a host (whose sign-ins,
// a person's own among them, are real), the API over it with opts and a fake
// OpenAI model running fakellm.Rules behind its chat.
func startPeopleHost(t *testing.T, servers []config.Server, opts api.Options) *env {
	t.Helper()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	logs := &testenv.Buffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := host.New(&config.Config{Source: "<test>", Servers: servers}, &host.Options{
		Logger: log, DataDir: t.TempDir(), Sessions: &config.SessionSettings{Store: "memory"},
		// The fake needs no key: an environment variable no one sets.
		Model: &config.ModelSettings{Name: "test-model", BaseURL: fake.URL, APIKeyEnv: "SWITCHBOARD_TEST_UNSET_KEY"}})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := h.Start(ctx, nil); err != nil {
		h.Close()
		t.Fatalf("host start: %v", err)
	}
	srv, err := h.API(ctx, &opts)
	if err != nil {
		h.Close()
		t.Fatalf("host.API: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.Close()
		t.Fatal(err)
	}
	e := &env{t: t, url: "http://" + ln.Addr().String(), hub: h.Hub(), srv: srv, logs: logs, fake: fake, done: make(chan error, 1)}
	go func() { e.done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = e.shutdown(5 * time.Second)
		h.Close()
		if t.Failed() {
			t.Logf("log:\n%s", logs)
		}
	})
	return e
}

// tab is a browser tab of a context of its own (its own sessionStorage and cookies):
// another person at another computer.
func tab(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	tctx, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(tctx); err != nil { // opens it, on a context that outlives the test's steps
		t.Fatalf("opening a tab: %v", err)
	}
	return tctx
}

// giveToken opens the dashboard at url, waits for it to ask for a token, gives it and
// waits for the page to say who is signed in.
func giveToken(t *testing.T, ctx context.Context, url, token, who string) {
	t.Helper()
	do(t, ctx, "opening the page", chromedp.Navigate(url+"/"), chromedp.WaitVisible(chromedp.CSS("#token-form")))
	do(t, ctx, "giving "+token, chromedp.SendKeys(chromedp.CSS("#token"), token+"\r"))
	waitJS(t, ctx, "the page saying "+who, `document.getElementById("who-name").textContent === `+jsString(who))
	waitJS(t, ctx, "the sessions listed", `document.getElementById("sessions-section").getAttribute("aria-busy") === "false"`)
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// listed is the sessions the page lists: id → what its entry says.
func listed(t *testing.T, ctx context.Context) map[string]string {
	t.Helper()
	return eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll("#sessions button")].map(b => [b.dataset.session, b.textContent]))`)
}

// TestDashboardPeople: with identities on, the dashboard in real browsers as three
// people. alice gives her token and is greeted by name; she chats, and the session
// the chat made is in her list with its first words as its title; opening it again
// shows its history and continues it; a session deleted meanwhile says "No such
// session" and leaves the list. bob, at another browser, sees his name and none of
// alice's sessions; people, a server each person signs in to for themselves (at a
// real authorization server), shows alice "You are signed in" as she has signed in
// over the API, offers bob Sign in, and his click starts his own sign-in at that
// authorization server, which the page links to; he is offered no Restart, an
// admin's. carol, an admin, sees every session with its owner, and Restart.
// Sign out forgets the token and asks again. Markup in a session's title, an owner
// or a name shows as text.
func TestDashboardPeople(t *testing.T) {
	ctx := browser(t)
	t.Setenv(demo.NotesFileEnv, filepath.Join(t.TempDir(), "notes.json"))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	auth := fakeauth.Start(t, &fakeauth.Options{People: true})
	people := notesServer(auth)
	people.Name, people.OAuth = "people", &config.OAuth{PerUser: true}
	e := startPeopleHost(t, append(demo.Config(exe).Servers, people), api.Options{Identify: dashboardPeople})
	// alice signs in to people before her tab looks: the service has her sign-in.
	aliceBrowser := newBrowser(t)
	loginURL, _ := e.loginIn(aliceBrowser, "people", "Authorization: Bearer alice-token")
	if page, err := fakeauth.Visit(t.Context(), aliceBrowser, loginURL, "alice"); err != nil || page.Status != http.StatusOK {
		t.Fatalf("alice's sign-in: %v %d %s", err, page.Status, page.Body)
	}
	e.do("GET", "/v1/servers/people", nil, "Authorization: Bearer alice-token").want(t, http.StatusOK, `"perUser": true`, `"signedIn": true`)

	// mallory's session, made over the API: its title and owner are markup.
	var malloryS struct {
		ID string `json:"id"`
	}
	r := e.do("POST", "/v1/sessions", map[string]any{"metadata": map[string]string{"title": hostile}}, "Authorization: Bearer mallory-token")
	r.want(t, http.StatusCreated)
	r.decode(t, &malloryS)

	alice := ctx
	var aliceS string
	t.Run("alice", func(t *testing.T) {
		giveToken(t, alice, e.url, "alice-token", "Signed in as alice")
		if shown := eval[bool](t, alice, `!document.getElementById("sign-out").hidden`); !shown {
			t.Errorf("no Sign out button")
		}
		// GET /v1/sessions is filtered by owner: alice is not shown mallory's session.
		if s, ok := listed(t, alice)[malloryS.ID]; ok {
			t.Errorf("alice is shown mallory's session (%q): GET /v1/sessions is not filtered by owner", s)
		}

		waitJS(t, alice, "both demo servers ready", `document.querySelectorAll('article.server[data-state="ready"]:is([data-server="clock"], [data-server="notes"])').length === 2`)
		perUser, notes := `document.querySelector('article.server[data-server="people"]')`, `document.querySelector('article.server[data-server="notes"]')`
		waitJS(t, alice, "people saying she is signed in", perUser+` && !`+perUser+`.querySelector(".signed-in-note").hidden`)
		if got := eval[string](t, alice, perUser+`.querySelector(".signed-in-note").textContent`); got != "You are signed in" {
			t.Errorf("people's note %q", got)
		}
		if shown := eval[bool](t, alice, `!`+perUser+`.querySelector('button[aria-label="Sign in to people"]').hidden`); shown {
			t.Errorf("a Sign in button on a per-person server alice is signed in to")
		}
		if shown := eval[bool](t, alice, `!`+notes+`.querySelector(".signed-in-note").hidden || !`+notes+`.querySelector('button[aria-label="Sign in to notes"]').hidden`); shown {
			t.Errorf("notes, which says nothing of per-person sign-ins, shows a sign-in state")
		}

		do(t, alice, "chatting", chromedp.SendKeys(chromedp.CSS("#chat-input"), "hello from alice\r"))
		waitJS(t, alice, "the answer", `[...document.querySelectorAll(".msg.assistant .body")].some(b => b.textContent.includes("You said: hello from alice"))`)
		aliceS = strings.TrimPrefix(eval[string](t, alice, `document.getElementById("chat-session").textContent`), "session ")
		waitJS(t, alice, "her session listed", `(b => b && b.querySelector(".title").textContent === "hello from alice" && b.textContent.includes("2 messages"))(document.querySelector('#sessions button[data-session="`+aliceS+`"]'))`)
		if cur := eval[string](t, alice, `document.querySelector('#sessions button[aria-current="true"]').dataset.session`); cur != aliceS {
			t.Errorf("the session marked open is %q, want %q", cur, aliceS)
		}
		screenshot(t, alice, "alice")

		// Opened again from the list: its history, and what is sent continues it.
		do(t, alice, "starting a new session", chromedp.Click(chromedp.CSS("#chat-new")))
		waitJS(t, alice, "the chat emptied", `document.getElementById("chat-log").children.length === 0 && !document.querySelector('#sessions button[aria-current="true"]')`)
		do(t, alice, "opening her session", chromedp.Click(chromedp.CSS(`#sessions button[data-session="`+aliceS+`"]`)))
		waitJS(t, alice, "its history", `document.querySelectorAll("#chat-log .msg").length === 2`)
		hist := eval[[]string](t, alice, `[...document.querySelectorAll("#chat-log .msg")].map(m => m.className + ": " + m.querySelector(".body").textContent)`)
		if len(hist) != 2 || hist[0] != "msg user: hello from alice" || !strings.HasPrefix(hist[1], "msg assistant: You said: hello from alice") {
			t.Errorf("history shown: %q", hist)
		}
		if got := eval[string](t, alice, `document.getElementById("chat-session").textContent`); got != "session "+aliceS {
			t.Errorf("chat says %q, want session %s", got, aliceS)
		}
		do(t, alice, "continuing it", chromedp.SendKeys(chromedp.CSS("#chat-input"), "and again\r"))
		waitJS(t, alice, "the second answer", `[...document.querySelectorAll(".msg.assistant .body")].some(b => b.textContent.includes("You said: and again"))`)
		var sess struct {
			Messages []struct {
				Text string `json:"text"`
			} `json:"messages"`
		}
		e.do("GET", "/v1/sessions/"+aliceS, nil, "Authorization: Bearer alice-token").decode(t, &sess)
		if len(sess.Messages) != 4 || sess.Messages[2].Text != "and again" {
			t.Errorf("alice's session holds %+v, want the continued turn in it", sess.Messages)
		}
		waitJS(t, alice, "the count updated", `document.querySelector('#sessions button[data-session="`+aliceS+`"]').textContent.includes("4 messages")`)
	})
	if aliceS == "" {
		t.FailNow()
	}

	t.Run("bob", func(t *testing.T) {
		bob := tab(t, ctx)
		giveToken(t, bob, e.url, "bob-token", "Signed in as bob")
		// Nor bob alice's and mallory's.
		if got := listed(t, bob); len(got) != 0 {
			t.Errorf("bob is shown sessions %v, want none of his own and none of anyone else's", got)
		}
		if empty := eval[bool](t, bob, `document.querySelectorAll("#sessions li").length > 0 || !document.getElementById("sessions-empty").hidden`); !empty {
			t.Errorf("an empty list does not say so")
		}
		perUser := `document.querySelector('article.server[data-server="people"]')`
		waitJS(t, bob, "people offering him Sign in", perUser+` && !`+perUser+`.querySelector('button[aria-label="Sign in to people"]').hidden`)
		if shown := eval[bool](t, bob, `!`+perUser+`.querySelector(".signed-in-note").hidden`); shown {
			t.Errorf("people tells bob he is signed in")
		}
		e.do("GET", "/v1/servers/people", nil, "Authorization: Bearer bob-token").want(t, http.StatusOK, `"perUser": true`, `"signedIn": false`)
		// A restart is an admin's (bob would get 403): no Restart button for him.
		if n := eval[int](t, bob, `[...document.querySelectorAll('article.server button[aria-label^="Restart "]')].filter(b => !b.hidden).length`); n != 0 {
			t.Errorf("bob, no admin, is offered %d Restart buttons", n)
		}
		screenshot(t, bob, "bob")
		// The Sign in button asks the API to sign this person in: the page says it
		// waits for the authorization server and links to it. (What the note shows
		// is recorded as it changes: the sign-in may complete in its own tab at once.)
		eval[bool](t, bob, `(note => {
			window.seenNotes = [];
			new MutationObserver(() => {
				const a = note.querySelector("a");
				if (!note.hidden) window.seenNotes.push({text: note.textContent, href: a ? a.href : ""});
			}).observe(note, {attributes: true, childList: true, subtree: true, characterData: true});
			return true;
		})(`+perUser+`.querySelector(".sign-in-note"))`)
		do(t, bob, "clicking Sign in", chromedp.Click(chromedp.CSS(`button[aria-label="Sign in to people"]`)))
		waitJS(t, bob, "the sign-in note linking to the authorization server", `window.seenNotes.some(n => n.text.startsWith("Waiting for the sign-in at the authorization server") && n.href.startsWith(`+jsString(auth.Issuer+"/")+`))`)
		// The sign-in the click started is bob's own at the service: the page's tab
		// went to the authorization server, which sent it back to the service's
		// callback, and the service now has bob signed in (alice was before).
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			r := e.do("GET", "/v1/servers/people", nil, "Authorization: Bearer bob-token")
			if r.status == http.StatusOK && strings.Contains(r.body, `"signedIn": true`) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("bob's sign-in through the page did not complete at the service: %s", r.body)
			}
		}
		if n := auth.Count(fakeauth.Authorize); n != 2 {
			t.Errorf("the authorization server was asked %d sign-ins, want alice's and bob's", n)
		}
	})

	carol := tab(t, ctx)
	t.Run("carol", func(t *testing.T) {
		giveToken(t, carol, e.url, "carol-token", "Signed in as carol (admin)")
		if hidden := eval[bool](t, carol, `document.querySelector('article.server[data-server="clock"] button[aria-label="Restart clock"]').hidden`); hidden {
			t.Errorf("carol, an admin, is not offered Restart")
		}
		got := listed(t, carol)
		if _, ok := got[aliceS]; !ok {
			t.Fatalf("carol, an admin, is not shown alice's session: %v", got)
		}
		if _, ok := got[malloryS.ID]; !ok {
			t.Fatalf("carol, an admin, is not shown mallory's session: %v", got)
		}
		title := eval[string](t, carol, `document.querySelector('#sessions button[data-session="`+malloryS.ID+`"] .title').textContent`)
		if title != hostile {
			t.Errorf("mallory's title shown as %q, want the text %q", title, hostile)
		}
		if n := eval[int](t, carol, `document.querySelectorAll("img, #sessions b").length`); n != 0 {
			t.Errorf("a session's title or owner became HTML: %d elements", n)
		}
		// An admin's GET /v1/sessions carries each session's owner.
		owners := eval[map[string]string](t, carol, `Object.fromEntries([...document.querySelectorAll("#sessions button")].map(b => [b.dataset.session, (b.querySelector(".owner") || {}).textContent || ""]))`)
		if owners[aliceS] != "owner: alice" || owners[malloryS.ID] != "owner: "+hostile {
			t.Errorf("owners shown: %q, want alice's and mallory's (as text)", owners)
		}
		screenshot(t, carol, "carol")
	})

	t.Run("no such session", func(t *testing.T) {
		e.do("DELETE", "/v1/sessions/"+aliceS, nil, "Authorization: Bearer alice-token").want(t, http.StatusNoContent)
		do(t, alice, "opening the deleted session", chromedp.Click(chromedp.CSS(`#sessions button[data-session="`+aliceS+`"]`)))
		waitJS(t, alice, "the page saying so", `!document.getElementById("sessions-note").hidden`)
		if got := eval[string](t, alice, `document.getElementById("sessions-note").textContent`); !strings.HasPrefix(got, "No such session: "+aliceS) {
			t.Errorf("the page says %q", got)
		}
		if _, ok := listed(t, alice)[aliceS]; ok {
			t.Errorf("the deleted session is still listed")
		}
		screenshot(t, alice, "no-such-session")
	})

	t.Run("sign out", func(t *testing.T) {
		do(t, carol, "signing out", chromedp.Click(chromedp.CSS("#sign-out")))
		waitJS(t, carol, "the token form", `!document.getElementById("token-form").hidden`)
		left := eval[map[string]any](t, carol, `({
			token: sessionStorage.getItem("switchboard.token"),
			who: document.getElementById("who").hidden,
			sessions: document.querySelectorAll("#sessions li").length,
			servers: document.querySelectorAll("article.server").length,
			tools: document.querySelectorAll("#tools button").length,
			chat: document.getElementById("chat-log").children.length,
			conn: document.getElementById("conn").dataset.state,
		})`)
		want := map[string]any{"token": nil, "who": true, "sessions": 0.0, "servers": 0.0, "tools": 0.0, "chat": 0.0, "conn": "token"}
		for k, v := range want {
			if left[k] != v {
				t.Errorf("after Sign out %s is %v, want %v", k, left[k], v)
			}
		}
		screenshot(t, carol, "signed-out")

		// Another person at the same tab: their name is markup, shown as text.
		do(t, carol, "giving mallory's token", chromedp.SendKeys(chromedp.CSS("#token"), "mallory-token\r"))
		waitJS(t, carol, "mallory's name", `document.getElementById("who-name").textContent === `+jsString("Signed in as "+hostileName))
		if n := eval[int](t, carol, `document.querySelectorAll("header b, header img").length`); n != 0 {
			t.Errorf("the name became HTML: %d elements", n)
		}
	})
}

// Signing out while a turn waits (here for an approval) ends the page's part in it:
// the next person at the tab chats at once, in a session of their own, and sees
// nothing of the last one's.
func TestDashboardSignOutMidTurn(t *testing.T) {
	ctx := browser(t)
	clock := clockServer(t)
	clock.Approve = []string{"current_time"}
	e := start(t, setup{servers: []config.Server{clock}, model: true, opts: api.Options{Identify: dashboardPeople}})
	giveToken(t, ctx, e.url, "alice-token", "Signed in as alice")
	do(t, ctx, "asking for a call that needs approval", chromedp.WaitVisible(chromedp.CSS("#chat-input")),
		chromedp.SendKeys(chromedp.CSS("#chat-input"), `call current_time {"zone": "UTC"}`+"\r"))
	waitJS(t, ctx, "the approval request", `document.querySelector('button[data-decision="allow"]') !== null`)
	aliceS := strings.TrimPrefix(eval[string](t, ctx, `document.getElementById("chat-session").textContent`), "session ")

	do(t, ctx, "signing out", chromedp.Click(chromedp.CSS("#sign-out")))
	waitJS(t, ctx, "the token form", `!document.getElementById("token-form").hidden`)
	do(t, ctx, "giving bob's token", chromedp.SendKeys(chromedp.CSS("#token"), "bob-token\r"))
	waitJS(t, ctx, "bob greeted", `document.getElementById("who-name").textContent === "Signed in as bob"`)
	do(t, ctx, "chatting as bob", chromedp.WaitVisible(chromedp.CSS("#chat-input")),
		chromedp.SendKeys(chromedp.CSS("#chat-input"), "hello from bob\r"))
	waitJS(t, ctx, "bob's answer", `[...document.querySelectorAll(".msg.assistant .body")].some(b => b.textContent.includes("You said: hello from bob"))`)
	if log := eval[string](t, ctx, `document.getElementById("chat-log").textContent`); strings.Contains(log, "call current_time") || strings.Contains(log, "needs your approval") {
		t.Errorf("bob's chat shows alice's turn: %q", log)
	}
	if got := eval[string](t, ctx, `document.getElementById("chat-session").textContent`); got == "session "+aliceS || got == "" {
		t.Errorf("bob chats in %q, want a session of his own (alice's is %s)", got, aliceS)
	}
	screenshot(t, ctx, "bob-after-alice")
}
