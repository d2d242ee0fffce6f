package api_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/api"
)

// TestDashboardKeys: the Keys panel in a real browser. alice, who is no admin, is
// not shown it. carol, an admin, sees the keys made over the API (a name of markup
// shown as text), makes one with the form (the key shown once, in full, and gone
// once she says she has copied it; the list never shows it), and the key works;
// she revokes it with its Revoke button, and it is refused from then on.
func TestDashboardKeys(t *testing.T) {
	ctx := browser(t)
	e := start(t, setup{opts: api.Options{Identify: testPeople, Profiles: func() []string { return []string{"ci", "docs"} }}})
	e.do("POST", "/v1/keys", `{"name": "`+strings.ReplaceAll(hostileName, `"`, `\"`)+`", "profiles": ["docs"]}`, "Authorization: Bearer carol-token").want(t, 201)

	t.Run("alice", func(t *testing.T) {
		alice := tab(t, ctx)
		giveToken(t, alice, e.url, "alice-token", "Signed in as alice")
		if shown := eval[bool](t, alice, `!document.getElementById("keys-section").hidden || !document.querySelector('#sections a[href="#keys-section"]').hidden`); shown {
			t.Errorf("alice, no admin, is shown the keys")
		}
	})

	carol := ctx
	giveToken(t, carol, e.url, "carol-token", "Signed in as carol (admin)")
	waitJS(t, carol, "the keys listed", `document.querySelectorAll("#keys tbody tr").length === 1`)
	if got := eval[string](t, carol, `document.querySelector("#keys .key-name").textContent`); got != hostileName {
		t.Errorf("the key's name shows as %q", got)
	}
	if n := eval[int](t, carol, `document.querySelectorAll("#keys b").length`); n != 0 {
		t.Errorf("a key's name made %d elements", n)
	}

	do(t, carol, "making a key", chromedp.SendKeys(chromedp.CSS("#key-name"), "ci-bot"),
		chromedp.SendKeys(chromedp.CSS("#key-profiles"), "ci, docs"),
		chromedp.SendKeys(chromedp.CSS("#key-expires"), "30d"),
		chromedp.Click(chromedp.CSS("#key-create")))
	waitJS(t, carol, "the new key shown", `!document.getElementById("key-made").hidden && document.querySelectorAll("#keys tbody tr").length === 2`)
	secret := eval[string](t, carol, `document.getElementById("key-secret").textContent`)
	if !strings.HasPrefix(secret, "sbk_") {
		t.Fatalf("the page shows the key as %q", secret)
	}
	row := `document.querySelector("#keys tbody tr:last-child")`
	if got := eval[string](t, carol, row+`.querySelector(".key-profiles").textContent`); got != "ci, docs" {
		t.Errorf("the new key's profiles show as %q", got)
	}
	if list := eval[string](t, carol, `document.getElementById("keys").textContent`); strings.Contains(list, secret[len(secret)-20:]) {
		t.Errorf("the list shows the key")
	}
	e.do("GET", "/v1/me", nil, "Authorization: Bearer "+secret).want(t, 200, `"name": "ci-bot"`)
	do(t, carol, "closing the key", chromedp.Click(chromedp.CSS("#key-made-done")))
	waitJS(t, carol, "the key gone from the page", `document.getElementById("key-made").hidden && !document.body.textContent.includes(`+jsString(secret)+`)`)

	id := eval[string](t, carol, row+`.dataset.id`)
	eval[bool](t, carol, `(window.confirm = () => true, true)`) // the confirmation answered yes
	do(t, carol, "revoking it", chromedp.Click(chromedp.CSS(`#keys button.key-revoke[data-id="`+id+`"]`)))
	waitJS(t, carol, "the key gone from the list", `document.querySelectorAll("#keys tbody tr").length === 1`)
	e.do("GET", "/v1/me", nil, "Authorization: Bearer "+secret).want(t, 401, "unknown or revoked application key")
}
