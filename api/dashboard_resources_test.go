package api_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
)

// The dashboard's resources and prompts in a real browser, over two test servers
// with --extras: the lists name their servers; a text resource opens as text, markup
// as text (no element made, no script run), an image as an <img>, a binary as a
// link that downloads its bytes; a template's form reads the URI it makes; a
// prompt's form returns its messages, and says which argument it lacks.
func TestDashboardResources(t *testing.T) {
	ctx := browser(t)
	e := start(t, setup{servers: []config.Server{extrasServer(t, "alpha", 5*time.Second), extrasServer(t, "beta", 5*time.Second)}})
	dir := t.TempDir()
	dctx, cancel := context.WithTimeout(ctx, time.Minute) // the download's events end with it
	defer cancel()
	progress := chromedp.Events(dctx, cdpbrowser.DownloadProgress)
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"),
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
				Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: new(true)})
			return err
		}))
	const notes = `#res-list button[data-uri="switchboard://beta/test://extras/notes.txt"]`
	waitJS(t, ctx, "the resources listed", `document.querySelector('`+notes+`') !== null`)
	groups := eval[[]string](t, ctx, `[...document.querySelectorAll("#res-list .res-server")].map((h) => h.textContent)`)
	if strings.Join(groups, ",") != "alpha,beta" {
		t.Errorf("resource groups %v, want alpha and beta", groups)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#res-list .res-group[data-server="alpha"] button[data-uri]').length`); n != 6 {
		t.Errorf("%d resources of alpha shown, want 6", n)
	}

	// Text as text.
	do(t, ctx, "opening notes.txt", chromedp.Click(chromedp.CSS(notes)))
	waitJS(t, ctx, "its text", `(p => p && p.textContent === "notes of beta")(document.querySelector("#res-view pre.res-text"))`)

	// Markup as text: the page makes no element of it and runs nothing.
	do(t, ctx, "opening markup.html", chromedp.Click(chromedp.CSS(`#res-list button[data-uri="switchboard://alpha/test://extras/markup.html"]`)))
	waitJS(t, ctx, "the markup as text", `(p => p && p.textContent.startsWith("<img src=x onerror="))(document.querySelector("#res-view pre.res-text"))`)
	if n := eval[int](t, ctx, `document.querySelectorAll("#res-view img, #res-view b").length`); n != 0 {
		t.Errorf("the markup made %d elements", n)
	}
	if pwned := eval[bool](t, ctx, `window.extrasPwned === 1`); pwned {
		t.Errorf("the markup's script ran")
	}

	// An image as an image.
	do(t, ctx, "opening pixel.png", chromedp.Click(chromedp.CSS(`#res-list button[data-uri="switchboard://alpha/test://extras/pixel.png"]`)))
	waitJS(t, ctx, "the image shown", `(i => i && i.complete && i.naturalWidth === 1)(document.querySelector("#res-view img.res-image"))`)
	if src := eval[string](t, ctx, `document.querySelector("#res-view img.res-image").src`); !strings.HasPrefix(src, "data:image/png;base64,iVBOR") {
		t.Errorf("image src %q", src)
	}
	screenshot(t, ctx, "image")

	// A binary as a download of its bytes.
	do(t, ctx, "opening data.bin", chromedp.Click(chromedp.CSS(`#res-list button[data-uri="switchboard://alpha/test://extras/data.bin"]`)))
	waitJS(t, ctx, "the download link", `document.querySelector("#res-view a.res-download[download]") !== null`)
	if name := eval[string](t, ctx, `document.querySelector("#res-view a.res-download").getAttribute("download")`); name != "data.bin" {
		t.Errorf("download name %q", name)
	}
	do(t, ctx, "downloading data.bin", chromedp.Click(chromedp.CSS(`#res-view a.res-download`)))
	want := make([]byte, 256)
	for i := range want {
		want[i] = byte(i)
	}
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("waiting for the download: %v", err)
		}
		if ev.State == cdpbrowser.DownloadProgressStateCanceled {
			t.Fatalf("the download was cancelled")
		}
		if ev.State != cdpbrowser.DownloadProgressStateCompleted {
			continue
		}
		got, err := os.ReadFile(filepath.Join(dir, ev.GUID))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("downloaded %d bytes (%v), want the 256 of data.bin", len(got), err)
		}
		break
	}

	// A template's form.
	const tmpl = `#res-templates form.template-form[data-template="switchboard://beta/test://extras/items/{id}"]`
	do(t, ctx, "reading item 7 of beta", chromedp.SendKeys(chromedp.CSS(tmpl+` input[name="id"]`), "7"),
		chromedp.Click(chromedp.CSS(tmpl+` button[type="submit"]`)))
	waitJS(t, ctx, "the item's text", `(p => p && p.textContent === "item 7 of beta")(document.querySelector("#res-view pre.res-text"))`)

	// Prompts: a required argument said to be missing, then the messages.
	do(t, ctx, "the prompts' tab", chromedp.Click(chromedp.CSS(`#res-tab-prompts`)))
	waitJS(t, ctx, "the prompts of both servers", `document.querySelectorAll('#prompt-list form.prompt-form[data-prompt$="greet"]').length === 2`)
	pgroups := eval[[]string](t, ctx, `[...document.querySelectorAll("#prompt-list .res-server")].map((h) => h.textContent)`)
	if strings.Join(pgroups, ",") != "alpha,beta" {
		t.Errorf("prompt groups %v", pgroups)
	}
	const greet = `#prompt-list .res-group[data-server="beta"] form.prompt-form[data-prompt$="greet"]`
	do(t, ctx, "getting greet without who", chromedp.Click(chromedp.CSS(greet+` button[type="submit"]`)))
	waitJS(t, ctx, "who said to be required", `document.querySelector('`+greet+` .prompt-result .error').textContent.includes("who")`)
	do(t, ctx, "getting greet", chromedp.SendKeys(chromedp.CSS(greet+` input[name="who"]`), "<b>Ada</b>"),
		chromedp.Click(chromedp.CSS(greet+` button[type="submit"]`)))
	waitJS(t, ctx, "the messages", `document.querySelectorAll('`+greet+` .prompt-result .msg').length === 2`)
	msgs := eval[[]string](t, ctx, `[...document.querySelectorAll('`+greet+` .prompt-result .msg')].map((m) => m.dataset.role + ": " + m.querySelector(".msg-text").textContent)`)
	if strings.Join(msgs, "|") != "user: Greet <b>Ada</b> kindly.|assistant: Hello, <b>Ada</b>, from beta!" {
		t.Errorf("messages %q", msgs)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#prompt-list b").length`); n != 0 {
		t.Errorf("an argument's markup made %d elements", n)
	}
	screenshot(t, ctx, "prompts")
}

// Signing out clears the resources, templates, prompts and what was read; the next
// token lists them again.
func TestDashboardResourcesForget(t *testing.T) {
	ctx := browser(t)
	const token = "tok-res-forget"
	e := start(t, setup{servers: []config.Server{extrasServer(t, "ts", 5*time.Second)}, opts: api.Options{Token: token}})
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"), chromedp.WaitVisible(chromedp.CSS("#token-form")),
		chromedp.SendKeys(chromedp.CSS("#token"), token+"\r"))
	const notes = `#res-list button[data-uri="test://extras/notes.txt"]`
	waitJS(t, ctx, "the resources listed", `document.querySelector('`+notes+`') !== null`)
	do(t, ctx, "opening notes.txt", chromedp.Click(chromedp.CSS(notes)))
	waitJS(t, ctx, "its text", `(p => p && p.textContent === "notes of ts")(document.querySelector("#res-view pre.res-text"))`)
	do(t, ctx, "signing out", chromedp.Click(chromedp.CSS("#sign-out")), chromedp.WaitVisible(chromedp.CSS("#token-form")))
	if left := eval[string](t, ctx, `document.getElementById("resources").innerText`); strings.Contains(left, "notes") || strings.Contains(left, "greet") || strings.Contains(left, "items") {
		t.Errorf("after signing out the view still shows %q", left)
	}
	do(t, ctx, "giving the token again", chromedp.SendKeys(chromedp.CSS("#token"), token+"\r"))
	waitJS(t, ctx, "the resources listed again", `document.querySelector('`+notes+`') !== null && document.querySelector('#prompt-list form[data-prompt="greet"]') !== null`)
}
