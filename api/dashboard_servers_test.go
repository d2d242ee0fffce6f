package api_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestDashboardServerEdits: in Chromium, a server added through the form gets its
// card and gets ready, and the config file has it with its comments; a problem is
// shown beside the field it is about; the switch disables it; Edit shows the
// entry with its secret masked and saves a change without it; Delete removes it.
func TestDashboardServerEdits(t *testing.T) {
	ctx := browser(t)
	e, path := startFileHost(t, api.Options{})
	ts := testserver.Stdio(t, "ts", "--tools", "frob_x,frob_y", "--pidfile", filepath.Join(t.TempDir(), "pid"))
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
	waitJS(t, ctx, "clock ready", `document.querySelector('article.server[data-server="clock"][data-state="ready"]') !== null`)
	waitJS(t, ctx, "the Add server button", `!document.getElementById("server-add").hidden`)

	card := func(name string) string { return `article.server[data-server="` + name + `"]` }
	t.Run("a field's error", func(t *testing.T) {
		do(t, ctx, "sending the form without a command",
			chromedp.Click(chromedp.CSS("#server-add")),
			chromedp.WaitVisible(chromedp.CSS("form.server-form")),
			chromedp.SetValue(chromedp.CSS("#server-field-name"), "ts"),
			chromedp.Click(chromedp.CSS(`form.server-form button[type="submit"]`)))
		waitJS(t, ctx, "the message beside the command", `!document.getElementById("server-field-command-error").hidden`)
		if got := eval[string](t, ctx, `document.getElementById("server-field-command-error").textContent`); !strings.Contains(got, `"command" or "url" is required`) {
			t.Errorf("command's error %q", got)
		}
		screenshot(t, ctx, "server-form")
	})

	t.Run("add", func(t *testing.T) {
		do(t, ctx, "filling in the form",
			chromedp.SetValue(chromedp.CSS("#server-field-command"), ts.Command),
			chromedp.SetValue(chromedp.CSS("#server-field-args"), strings.Join(ts.Args, "\n")),
			chromedp.SetValue(chromedp.CSS("#server-field-env"), "TS_TOKEN=${TS_TOKEN}\nTS_PLAIN=hunter2"),
			chromedp.Click(chromedp.CSS(`form.server-form button[type="submit"]`)))
		waitJS(t, ctx, "ts's card ready", `document.querySelector('`+card("ts")+`[data-state="ready"]') !== null`)
		waitJS(t, ctx, "the form closed", `document.getElementById("server-form-box").hidden`)
		file := fileText(t, path)
		for _, want := range []string{"// The team's servers.", "// keep me", `"ts": {`, `"TS_TOKEN": "${TS_TOKEN}"`, `"frob_x,frob_y"`} {
			if !strings.Contains(file, want) {
				t.Errorf("the file has no %q:\n%s", want, file)
			}
		}
	})

	t.Run("disable", func(t *testing.T) {
		do(t, ctx, "switching ts off", chromedp.Click(chromedp.CSS(card("ts")+` input[role="switch"]`)))
		waitJS(t, ctx, "ts disabled", `document.querySelector('`+card("ts")+`[data-state="disabled"]') !== null`)
		if !strings.Contains(fileText(t, path), `"disabled": true`) {
			t.Errorf("the file does not say disabled:\n%s", fileText(t, path))
		}
		do(t, ctx, "switching ts on", chromedp.Click(chromedp.CSS(card("ts")+` input[role="switch"]`)))
		waitJS(t, ctx, "ts ready again", `document.querySelector('`+card("ts")+`[data-state="ready"]') !== null`)
	})

	t.Run("edit", func(t *testing.T) {
		do(t, ctx, "opening ts's form", chromedp.Click(chromedp.CSS(card("ts")+` button[aria-label="Edit ts"]`)),
			chromedp.WaitVisible(chromedp.CSS("form.server-form")))
		env := eval[string](t, ctx, `document.getElementById("server-field-env").value`)
		if env != "TS_TOKEN=${TS_TOKEN}\nTS_PLAIN=********" {
			t.Errorf("env shown %q, want the reference and the masked value", env)
		}
		do(t, ctx, "denying frob_y", chromedp.SetValue(chromedp.CSS("#server-field-tools\\.deny"), "frob_y"),
			chromedp.Click(chromedp.CSS(`form.server-form button[type="submit"]`)))
		waitJS(t, ctx, "the form closed", `document.getElementById("server-form-box").hidden`)
		file := fileText(t, path)
		if !strings.Contains(file, `"deny": ["frob_y"]`) || !strings.Contains(file, `"TS_PLAIN": "hunter2"`) {
			t.Errorf("the file after the edit:\n%s", file)
		}
	})

	t.Run("delete", func(t *testing.T) {
		do(t, ctx, "deleting ts",
			chromedp.Click(chromedp.CSS(card("ts")+` button[aria-label="Delete ts"]`)),
			chromedp.Click(chromedp.CSS(card("ts")+` button[aria-label="Yes, delete ts"]`)))
		waitJS(t, ctx, "ts's card gone", `document.querySelector('`+card("ts")+`') === null`)
		if strings.Contains(fileText(t, path), `"ts"`) {
			t.Errorf("the file still has ts:\n%s", fileText(t, path))
		}
		screenshot(t, ctx, "servers-edited")
	})
}

// TestDashboardServerEditsAdmins: with identities, a person who is not an admin is
// offered no change of the servers, nor their logs; an admin, signing in after them in the same
// tab, is.
func TestDashboardServerEditsAdmins(t *testing.T) {
	ctx := browser(t)
	e, _ := startFileHost(t, api.Options{Identify: testPeople})
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"), chromedp.WaitVisible(chromedp.CSS("#token-form")))
	do(t, ctx, "giving alice's token", chromedp.SendKeys(chromedp.CSS("#token"), "alice-token\r"))
	waitJS(t, ctx, "clock ready", `document.querySelector('article.server[data-server="clock"][data-state="ready"]') !== null`)
	waitJS(t, ctx, "alice's rights known", `document.getElementById("servers-section").dataset.editable === "no"`)
	if shown := eval[bool](t, ctx, `!document.getElementById("server-add").hidden || !document.querySelector("article.server .server-edit").hidden`); shown {
		t.Error("alice, not an admin, is offered to change the servers")
	}
	// Nor a server's log (GET /v1/servers/{name}/log is an admin's with identities).
	waitJS(t, ctx, "alice signed in", `document.getElementById("who-name").textContent.includes("alice")`)
	if shown := eval[bool](t, ctx, `!document.querySelector('article.server[data-server="clock"] .log-open').hidden`); shown {
		t.Error("alice, not an admin, is offered the servers' logs")
	}
	do(t, ctx, "signing out", chromedp.Click(chromedp.CSS("#sign-out")), chromedp.WaitVisible(chromedp.CSS("#token-form")))
	do(t, ctx, "giving carol's token", chromedp.SendKeys(chromedp.CSS("#token"), "carol-token\r"))
	waitJS(t, ctx, "the Add server button for carol", `!document.getElementById("server-add").hidden`)
	waitJS(t, ctx, "clock's controls for carol", `!document.querySelector('article.server[data-server="clock"] .server-edit').hidden`)
	waitJS(t, ctx, "clock's log for carol", `!document.querySelector('article.server[data-server="clock"] .log-open').hidden`)
}
