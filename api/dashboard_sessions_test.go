package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/session/sessiontest"
	"github.com/switchboard-mcp/switchboard/session/sqlite"
)

// shownSessions is the ids of the sessions the page lists, in order.
const shownSessions = `[...document.querySelectorAll("#sessions button.open")].map(b => b.dataset.session)`

// sessionTurn makes a session over the API and runs one turn in it with content.
func sessionTurn(t *testing.T, e *env, content string) string {
	t.Helper()
	var s struct {
		ID string `json:"id"`
	}
	r := e.do("POST", "/v1/sessions", map[string]any{})
	r.want(t, http.StatusCreated)
	r.decode(t, &s)
	e.do("POST", "/v1/sessions/"+s.ID+"/messages", map[string]string{"content": content}).want(t, http.StatusOK)
	return s.ID
}

// searchSessions types q in the sessions' search box (after clearing it) and waits
// for the list to show want, in order.
func searchSessions(t *testing.T, ctx context.Context, q string, want []string) {
	t.Helper()
	// Emptied as a person would (an input event), then typed into.
	eval[bool](t, ctx, `(s => { s.value = ""; return s.dispatchEvent(new Event("input")) })(document.getElementById("session-search"))`)
	if q != "" {
		do(t, ctx, "searching for "+q, chromedp.SendKeys(chromedp.CSS("#session-search"), q))
	}
	waitJS(t, ctx, fmt.Sprintf("the sessions matching %q", q), `JSON.stringify(`+shownSessions+`) === `+jsString(mustJSON(want)))
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestDashboardSessions: the Sessions panel over 34 sessions (33 made over the API
// with turns of the fake model, one with every kind of content put in the SQLite
// store). It lists the newest 25 first, with their first messages as titles; Older
// and Newer page through the rest; the search box finds sessions by words of their
// first message. Opening one shows its whole history: tool calls, their results
// (an error result marked), an image as [Image: type]; what is sent next continues
// it. Delete asks first (No keeps it), then removes it from the list and the API; a
// session in which a turn runs is not deleted, and the page says why.
func TestDashboardSessions(t *testing.T) {
	ctx := browser(t)
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	clock := clockServer(t)
	clock.Approve = []string{"add_duration"}
	e := start(t, setup{servers: []config.Server{clock}, model: true,
		opts: api.Options{Sessions: session.NewJanitor(st, nil)}, conv: conversation.Options{ApprovalTimeout: time.Minute}})

	pictures := &session.Session{ID: "pictures", Messages: sessiontest.History(), LastActive: time.Now().Add(-time.Hour)}
	if err := st.Create(t.Context(), pictures); err != nil {
		t.Fatal(err)
	}
	tools := sessionTurn(t, e, `call current_time {"zone": "UTC"}`+"\n"+`call convert_time {"time": "2026-01-02T03:04:05Z", "to": "Mars/Olympus"}`)
	notes := map[int]string{}
	for i := 2; i < 34; i++ {
		topic := "lions"
		if i == 7 {
			topic = "zebras and giraffes"
		}
		notes[i] = sessionTurn(t, e, fmt.Sprintf("note number %d about %s", i, topic))
	}
	first, second := listPage(t, e, "limit=25", ""), sessionPage{}
	if first.Next == nil {
		t.Fatalf("the API's first page of 25 has no next: %+v", first)
	}
	second = listPage(t, e, "limit=25&cursor="+*first.Next, "")
	if first.ids()[0] != notes[33] || second.ids()[len(second.Sessions)-1] != "pictures" || len(second.Sessions) != 9 {
		t.Fatalf("the API's pages: %q, %q; want the newest note first and pictures last", first.ids(), second.ids())
	}

	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
	waitJS(t, ctx, "the first page of sessions", shownSessions+`.length === 25`)

	t.Run("newest first", func(t *testing.T) {
		if got := eval[[]string](t, ctx, shownSessions); !slices.Equal(got, first.ids()) {
			t.Errorf("the page lists %q, want the API's newest 25 %q", got, first.ids())
		}
		row := `document.querySelector('#sessions button[data-session="` + notes[33] + `"]')`
		if title := eval[string](t, ctx, row+`.querySelector(".title").textContent`); title != "note number 33 about lions" {
			t.Errorf("the newest session's title %q, want its first message", title)
		}
		if facts := eval[string](t, ctx, row+`.querySelector(".facts").textContent`); !strings.Contains(facts, "2 messages · active ") {
			t.Errorf("the newest session's facts %q, want its messages and its time", facts)
		}
		got := eval[map[string]any](t, ctx, `({count: document.getElementById("session-count").textContent,
			range: document.getElementById("sessions-range").textContent,
			pager: !document.getElementById("sessions-pager").hidden,
			newer: document.getElementById("sessions-newer").disabled,
			older: document.getElementById("sessions-older").disabled})`)
		want := map[string]any{"count": "(34)", "range": "1–25 of 34", "pager": true, "newer": true, "older": false}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %v, want %v", k, got[k], v)
			}
		}
		screenshot(t, ctx, "sessions-newest")
	})

	t.Run("older", func(t *testing.T) {
		do(t, ctx, "clicking Older", chromedp.Click(chromedp.CSS("#sessions-older")))
		waitJS(t, ctx, "the second page", `document.getElementById("sessions-range").textContent === "26–34 of 34"`)
		if got := eval[[]string](t, ctx, shownSessions); !slices.Equal(got, second.ids()) {
			t.Errorf("the second page lists %q, want the API's %q", got, second.ids())
		}
		if older := eval[bool](t, ctx, `document.getElementById("sessions-older").disabled`); !older {
			t.Errorf("Older is enabled on the last page")
		}
		screenshot(t, ctx, "sessions-older")
		do(t, ctx, "clicking Newer", chromedp.Click(chromedp.CSS("#sessions-newer")))
		waitJS(t, ctx, "the first page again", `document.getElementById("sessions-range").textContent === "1–25 of 34"`)
		if got := eval[[]string](t, ctx, shownSessions); !slices.Equal(got, first.ids()) {
			t.Errorf("back on the first page: %q, want %q", got, first.ids())
		}
	})

	t.Run("search", func(t *testing.T) {
		searchSessions(t, ctx, "giraffes ZEBRAS", []string{notes[7]})
		if title := eval[string](t, ctx, `document.querySelector("#sessions .title").textContent`); title != "note number 7 about zebras and giraffes" {
			t.Errorf("the match's title %q", title)
		}
		if shown := eval[bool](t, ctx, `getComputedStyle(document.getElementById("sessions-pager")).display !== "none"`); shown {
			t.Errorf("a pager for one page")
		}
		searchSessions(t, ctx, "tigers", []string{})
		if empty := eval[string](t, ctx, `(p => p.hidden ? "" : p.textContent)(document.getElementById("sessions-empty"))`); !strings.Contains(empty, "No session matches") {
			t.Errorf("a search without matches says %q", empty)
		}
		screenshot(t, ctx, "sessions-search")
		searchSessions(t, ctx, "", first.ids())
	})

	t.Run("open and continue", func(t *testing.T) {
		searchSessions(t, ctx, "convert_time", []string{tools})
		do(t, ctx, "opening the session with tool calls", chromedp.Click(chromedp.CSS(`#sessions button[data-session="`+tools+`"]`)))
		waitJS(t, ctx, "its history", `document.querySelectorAll("#chat-log .msg").length === 2`)
		reply := eval[string](t, ctx, `document.querySelector("#chat-log .msg.assistant").textContent`)
		for _, want := range []string{"→ current_time", "→ convert_time", "← current_time: ", "← convert_time failed: ", "Mars/Olympus"} {
			if !strings.Contains(reply, want) {
				t.Errorf("the history's reply %q lacks %q", reply, want)
			}
		}
		if failed := eval[string](t, ctx, `(s => s ? s.textContent : "")(document.querySelector("#chat-log .step.error"))`); !strings.HasPrefix(failed, "← convert_time failed") {
			t.Errorf("the error result is shown as %q, want it marked as an error", failed)
		}
		if cur := eval[string](t, ctx, `document.getElementById("chat-session").textContent`); cur != "session "+tools {
			t.Errorf("the chat says %q", cur)
		}
		screenshot(t, ctx, "sessions-open")

		do(t, ctx, "continuing it", chromedp.SendKeys(chromedp.CSS("#chat-input"), "hello again\r"))
		waitJS(t, ctx, "the answer", `[...document.querySelectorAll(".msg.assistant .body")].some(b => b.textContent.includes("You said: hello again"))`)
		var sess struct {
			Messages []struct {
				Text string `json:"text"`
			} `json:"messages"`
		}
		e.do("GET", "/v1/sessions/"+tools, nil).decode(t, &sess)
		if len(sess.Messages) != 7 || sess.Messages[5].Text != "hello again" {
			t.Errorf("the session holds %+v, want its 5 messages and the continued turn", sess.Messages)
		}
		waitJS(t, ctx, "its count in the list", `document.querySelector('#sessions button[data-session="`+tools+`"]').textContent.includes("7 messages")`)

		searchSessions(t, ctx, "zürich", []string{"pictures"})
		do(t, ctx, "opening the session with an image", chromedp.Click(chromedp.CSS(`#sessions button[data-session="pictures"]`)))
		waitJS(t, ctx, "its history", `document.getElementById("chat-session").textContent === "session pictures"`)
		hist := eval[string](t, ctx, `document.getElementById("chat-log").textContent`)
		for _, want := range []string{"Wetter in Zürich?", "→ weather__get", "12 °C, rain", "[Image: image/png]", "[Resource link: https://example.com/radar]", "← notes__add failed: malformed arguments", "12 °C and rain."} {
			if !strings.Contains(hist, want) {
				t.Errorf("the history %q lacks %q", hist, want)
			}
		}
		if n := eval[int](t, ctx, `document.querySelectorAll("#chat-log img").length`); n != 0 {
			t.Errorf("the history shows %d images, want them as text", n)
		}
	})

	t.Run("delete", func(t *testing.T) {
		searchSessions(t, ctx, "convert_time", []string{tools})
		do(t, ctx, "opening it", chromedp.Click(chromedp.CSS(`#sessions button[data-session="`+tools+`"]`)))
		waitJS(t, ctx, "it open", `document.getElementById("chat-session").textContent === "session `+tools+`"`)
		del := `#sessions button[data-delete="` + tools + `"]`
		do(t, ctx, "clicking Delete", chromedp.Click(chromedp.CSS(del)))
		waitJS(t, ctx, "the question", `document.activeElement.dataset.confirm === "no"`)
		screenshot(t, ctx, "sessions-delete-ask")
		do(t, ctx, "answering No", chromedp.Click(chromedp.CSS(`#sessions button[data-confirm="no"]`)))
		waitJS(t, ctx, "the Delete button again", `!!document.querySelector('`+del+`') && !document.querySelector("#sessions .confirm")`)
		e.do("GET", "/v1/sessions/"+tools, nil).want(t, http.StatusOK)

		do(t, ctx, "deleting it", chromedp.Click(chromedp.CSS(del)),
			chromedp.Click(chromedp.CSS(`#sessions button[data-confirm="yes"]`)))
		waitJS(t, ctx, "it gone from the list", shownSessions+`.length === 0 && !document.getElementById("sessions-empty").hidden`)
		e.do("GET", "/v1/sessions/"+tools, nil).want(t, http.StatusNotFound)
		if chat := eval[string](t, ctx, `document.getElementById("chat-log").textContent + document.getElementById("chat-session").textContent`); chat != "" {
			t.Errorf("the deleted session is still shown in the chat: %q", chat)
		}
		searchSessions(t, ctx, "", listPage(t, e, "limit=25", "").ids())
		if n := eval[string](t, ctx, `document.getElementById("session-count").textContent`); n != "(33)" {
			t.Errorf("count after deleting one: %s, want (33)", n)
		}
	})

	t.Run("busy", func(t *testing.T) {
		var s struct {
			ID string `json:"id"`
		}
		e.do("POST", "/v1/sessions", map[string]any{}).decode(t, &s)
		turn, r := e.openStream("/v1/sessions/"+s.ID+"/messages", map[string]string{"content": `call add_duration {"time": "2026-01-02T03:04:05Z", "duration": "1h"}`})
		if turn == nil {
			t.Fatalf("the turn: %d %s", r.status, r)
		}
		var ask struct {
			CallID string `json:"callId"`
		}
		if err := json.Unmarshal([]byte(last(turn.until(t, "approval_required")).data), &ask); err != nil {
			t.Fatal(err)
		}
		searchSessions(t, ctx, "add_duration", []string{s.ID})
		do(t, ctx, "deleting the busy session", chromedp.Click(chromedp.CSS(`#sessions button[data-delete="`+s.ID+`"]`)),
			chromedp.Click(chromedp.CSS(`#sessions button[data-confirm="yes"]`)))
		waitJS(t, ctx, "the page saying why not", `!document.getElementById("sessions-note").hidden`)
		if note := eval[string](t, ctx, `document.getElementById("sessions-note").textContent`); !strings.Contains(note, "A turn is running in this session") {
			t.Errorf("the page says %q", note)
		}
		if got := eval[[]string](t, ctx, shownSessions); !slices.Equal(got, []string{s.ID}) {
			t.Errorf("after a refused delete the list shows %q", got)
		}
		screenshot(t, ctx, "sessions-busy")
		e.do("POST", "/v1/sessions/"+s.ID+"/approvals/"+ask.CallID, map[string]any{"allow": false}).want(t, http.StatusOK)
		turn.until(t, "done")
		e.do("GET", "/v1/sessions/"+s.ID, nil).want(t, http.StatusOK, `"busy": false`)
		do(t, ctx, "deleting it once the turn ended", chromedp.Click(chromedp.CSS(`#sessions button[data-delete="`+s.ID+`"]`)),
			chromedp.Click(chromedp.CSS(`#sessions button[data-confirm="yes"]`)))
		waitJS(t, ctx, "it gone", shownSessions+`.length === 0 && document.getElementById("sessions-note").hidden`)
		e.do("GET", "/v1/sessions/"+s.ID, nil).want(t, http.StatusNotFound)
	})
}
