package api_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
)

// notSaved is what the page says of a change the service could not write to a file.
const notSaved = "not saved: no config file"

// TestDashboardNotSaved: under the built-in demo (no config file) a server disabled
// or deleted in the dashboard is changed until the service stops only, and the page
// says so at once; with a config file, where the change is written, it says nothing
// of the kind.
func TestDashboardNotSaved(t *testing.T) {
	card := `article.server[data-server="clock"]`
	note := `(n => n && !n.hidden ? n.textContent : "")(document.getElementById("server-edit-note"))`

	t.Run("no file", func(t *testing.T) {
		ctx := browser(t)
		e := startHost(t, []config.Server{clockServer(t)}, api.Options{})
		do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
		waitJS(t, ctx, "clock's switch", `document.querySelector('`+card+`[data-state="ready"] input[role="switch"]') !== null && document.getElementById("servers-section").dataset.editable === "yes"`)
		do(t, ctx, "switching clock off", chromedp.Click(chromedp.CSS(card+` input[role="switch"]`)))
		waitJS(t, ctx, "clock disabled", `document.querySelector('`+card+`[data-state="disabled"]') !== null`)
		waitJS(t, ctx, "the page saying it is not saved", note+`.includes("`+notSaved+`")`)
		if got := eval[string](t, ctx, note); !strings.Contains(got, "clock") || !strings.Contains(got, "until the service stops") {
			t.Errorf("the note reads %q, want the server and how long the change lasts", got)
		}
		screenshot(t, ctx, "not-saved")
		do(t, ctx, "deleting clock", chromedp.Click(chromedp.CSS(card+` button[aria-label="Delete clock"]`)),
			chromedp.Click(chromedp.CSS(card+` button[aria-label="Yes, delete clock"]`)))
		waitJS(t, ctx, "clock's card gone", `document.querySelector('`+card+`') === null`)
		if got := eval[string](t, ctx, note); !strings.Contains(got, notSaved) || !strings.Contains(got, "clock removed") {
			t.Errorf("after the delete the note reads %q, want clock removed, %s", got, notSaved)
		}
	})

	t.Run("file", func(t *testing.T) {
		ctx := browser(t)
		e, path := startFileHost(t, api.Options{})
		do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
		waitJS(t, ctx, "clock's switch", `document.querySelector('`+card+`[data-state="ready"] input[role="switch"]') !== null && document.getElementById("servers-section").dataset.editable === "yes"`)
		do(t, ctx, "switching clock off", chromedp.Click(chromedp.CSS(card+` input[role="switch"]`)))
		// The switch is enabled again once the change's answer is in.
		waitJS(t, ctx, "clock disabled", `document.querySelector('`+card+`[data-state="disabled"] input[role="switch"]:not(:disabled)') !== null`)
		if !strings.Contains(fileText(t, path), `"disabled": true`) {
			t.Fatalf("the file does not say disabled:\n%s", fileText(t, path))
		}
		if got := eval[string](t, ctx, `document.getElementById("servers-section").innerText`); strings.Contains(got, "not saved") {
			t.Errorf("with the change written to its file the page says %q", got)
		}
	})
}
