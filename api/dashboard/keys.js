// Switchboard dashboard: application keys (see app.js, window.switchboard).
//
// A section for admins (GET /v1/me says so): the keys of GET /v1/keys (name, id,
// profiles, made, expires, last used: never a key), a form that makes one (POST
// /v1/keys) and shows it once, in a box the admin closes after copying it, and a
// Revoke button on each (DELETE /v1/keys/{id}, after a confirmation). Names and
// profiles are the admin's own input, shown as text all the same.
"use strict";
(() => {
  const sb = window.switchboard;
  const { el } = sb;

  const error = el("p", { class: "error", role: "alert", hidden: true });
  const name = el("input", { id: "key-name", autocomplete: "off", required: true, maxlength: "100", placeholder: "ci-bot" });
  const profiles = el("input", { id: "key-profiles", autocomplete: "off", required: true, placeholder: "ci, docs" });
  const expires = el("input", { id: "key-expires", autocomplete: "off", placeholder: "30d (empty: until revoked)" });
  const create = el("button", { type: "submit", id: "key-create", text: "Make key" });
  const form = el("form", { id: "key-form" },
    el("label", { for: "key-name", text: "Name" }), name,
    el("label", { for: "key-profiles", text: "Profiles (comma-separated)" }), profiles,
    el("label", { for: "key-expires", text: "Expires in" }), expires,
    el("div", { class: "row" }, create));
  // The new key, shown once.
  const made = el("div", { id: "key-made", class: "panel", role: "status", hidden: true });
  const empty = el("p", { id: "keys-empty", class: "muted", text: "No application keys." });
  const body = el("tbody");
  const table = el("table", { id: "keys", hidden: true },
    el("thead", {}, el("tr", {}, ...["Name", "Id", "Profiles", "Made", "Expires", "Last used", ""].map((h) => el("th", { scope: "col", text: h })))),
    body);
  const section = el("section", { id: "keys-section", "aria-labelledby": "keys-h", hidden: true },
    el("h2", { id: "keys-h", text: "Application keys" }),
    el("p", { class: "muted", text: "A key is a bearer token for a program, reaching exactly its profiles. It is shown once, when made." }),
    form, error, made, empty, el("div", { class: "scroll" }, table));
  const link = el("a", { href: "#keys-section", text: "Keys", hidden: true });
  document.querySelector("main").append(section);
  document.getElementById("sections").append(link);

  function fail(what, e) {
    error.textContent = what + ": " + (e.describe ? e.describe() : e.message || String(e));
    error.hidden = false;
  }

  const dated = (t) => (t ? sb.when(t) : "—");

  function row(k) {
    const revoke = el("button", { type: "button", class: "key-revoke", "data-id": k.id, text: "Revoke" });
    revoke.addEventListener("click", async () => {
      if (!window.confirm(`Revoke the key ${k.name} (${k.id})? Programs that use it are refused from their next request.`)) return;
      try {
        await sb.api("/v1/keys/" + encodeURIComponent(k.id), { method: "DELETE" });
        error.hidden = true;
      } catch (e) {
        fail("Could not revoke the key", e);
      }
      load();
    });
    return el("tr", { "data-id": k.id },
      el("td", { class: "key-name", text: k.name }),
      el("td", {}, el("code", { text: k.id })),
      el("td", { class: "key-profiles", text: (k.profiles || []).join(", ") }),
      el("td", { text: dated(k.created) }),
      el("td", { text: k.expires ? dated(k.expires) : "never" }),
      el("td", { class: "key-used", text: dated(k.lastUsed) }),
      el("td", {}, revoke));
  }

  async function load() {
    const my = sb.epoch();
    let list;
    try {
      list = await sb.api("/v1/keys");
    } catch (e) {
      if (my === sb.epoch()) fail("Could not list the keys", e);
      return;
    }
    if (my !== sb.epoch()) return;
    body.replaceChildren(...list.keys.map(row));
    table.hidden = list.keys.length === 0;
    empty.hidden = list.keys.length !== 0;
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const req = { name: name.value.trim(), profiles: profiles.value.split(",").map((p) => p.trim()).filter((p) => p) };
    if (expires.value.trim()) req.expiresIn = expires.value.trim();
    create.disabled = true;
    try {
      const k = await sb.api("/v1/keys", { method: "POST", body: req });
      error.hidden = true;
      const done = el("button", { type: "button", id: "key-made-done", text: "I have copied it" });
      done.addEventListener("click", () => {
        made.replaceChildren();
        made.hidden = true;
      });
      made.replaceChildren(
        el("p", { text: `The key ${k.name} (${k.id}): copy it now, it is not shown again.` }),
        el("pre", {}, el("code", { id: "key-secret", text: k.key })),
        done);
      made.hidden = false;
      form.reset();
      load();
    } catch (e) {
      fail("Could not make the key", e);
    } finally {
      create.disabled = false;
    }
  });

  sb.on("me", (who) => {
    const admin = !who || !!who.admin;
    section.hidden = !admin;
    link.hidden = !admin;
    if (admin) load();
  });

  sb.on("forget", () => {
    section.hidden = true;
    link.hidden = true;
    body.replaceChildren();
    made.replaceChildren();
    made.hidden = true;
    error.hidden = true;
  });
})();
