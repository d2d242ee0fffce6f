// Switchboard dashboard: servers-edit (see app.js, window.switchboard).
// Servers added, changed, disabled and removed at run time: POST /v1/servers, PATCH
// and DELETE /v1/servers/{name}, GET /v1/servers/{name}/config (api/serveredit.go).
// The service writes each change to its config file; without one (the built-in
// demo's) a change lasts until the service stops, and the page says so after it
// (the answers' "saved": false). Shown to whoever may make them: everyone without
// identities, admins with them (GET /v1/me's "admin").
"use strict";
(() => {
  const sb = window.switchboard;
  const { el } = sb;
  const $ = (id) => document.getElementById(id);
  const MASKED = "********"; // config.Masked: a secret the service does not send

  let allowed = false; // may this person change the servers
  const cards = new Map(); // name → {card, controls, toggle, error}

  // send is app.js's api: its error keeps the field a 400 names (APIError.field).
  const send = (method, path, body) => sb.api(path, { method, body });

  const path = (name) => "/v1/servers/" + encodeURIComponent(name);

  // ---- who may ----

  async function loadAllowed() {
    const my = sb.epoch();
    let ok = false;
    try {
      const who = await sb.api("/v1/me");
      ok = !!(who && who.admin); // without identities everyone is
    } catch (_) { /* an older server: no edits offered */ }
    if (my !== sb.epoch()) return;
    allowed = ok;
    section.dataset.editable = ok ? "yes" : "no"; // the person's answer is in
    render();
  }

  function render() {
    addButton.hidden = !allowed;
    if (!allowed) saved("", null);
    if (!allowed) closeForm();
    for (const [, c] of cards) c.controls.hidden = !allowed;
  }

  // ---- the form ----

  const section = $("servers-section");
  const addButton = el("button", { type: "button", id: "server-add", class: "primary", text: "Add server", hidden: true });
  const formBox = el("div", { id: "server-form-box", hidden: true });
  const note = el("p", { id: "server-edit-note", role: "status", hidden: true });
  section.querySelector("h2").after(el("div", { class: "server-edit-bar" }, note, addButton), formBox);

  // saved says what became of a change: nothing when it is in the config file; that
  // it lasts until the service stops when there is none (saved false).
  function saved(what, answer) {
    const lost = !!answer && answer.saved === false;
    note.hidden = !lost;
    note.textContent = lost ? `${what} — not saved: no config file, so this lasts until the service stops.` : "";
  }
  addButton.addEventListener("click", () => openForm(null, {}));

  // field makes one labelled input with the place of its error.
  function field(key, label, input, hint) {
    input.id = "server-field-" + key;
    const error = el("p", { class: "field-error error", id: input.id + "-error", role: "alert", hidden: true });
    input.setAttribute("aria-describedby", error.id);
    const wrap = el("div", { class: "server-field", "data-field": key },
      el("label", { for: input.id, text: label }, hint ? el("span", { class: "hint", text: hint }) : null), input, error);
    return { wrap, input, error };
  }

  let form = null; // the open form: {el, fields, name, orig, general}

  // openForm opens the form of server name (null: a new one) with its entry orig;
  // inFile false says the config has no file to write a change to.
  function openForm(name, orig, inFile) {
    closeForm();
    const f = {
      name: field("name", "Name", el("input", { type: "text", required: true, autocomplete: "off", spellcheck: "false" }),
        "How the server is called; its tools may take it as a prefix."),
      type: field("type", "Transport", el("select", {},
        el("option", { value: "stdio", text: "stdio (a command run here)" }),
        el("option", { value: "http", text: "Streamable HTTP (a URL)" }),
        el("option", { value: "sse", text: "SSE (a legacy URL)" }))),
      command: field("command", "Command", el("input", { type: "text", autocomplete: "off", spellcheck: "false" })),
      args: field("args", "Arguments", el("textarea", { rows: 3, spellcheck: "false" }), "One a line."),
      url: field("url", "URL", el("input", { type: "text", autocomplete: "off", spellcheck: "false", placeholder: "https://…/mcp" })),
      env: field("env", "Environment", el("textarea", { rows: 3, spellcheck: "false", placeholder: "GITHUB_TOKEN=${GITHUB_TOKEN}" }),
        "KEY=VALUE, one a line. For a secret write ${VAR}: the file keeps the reference, the service's environment gives the value. " +
        MASKED + " is a value not shown: left as it is, it stays."),
      headers: field("headers", "Headers", el("textarea", { rows: 2, spellcheck: "false", placeholder: "Authorization=Bearer ${API_TOKEN}" }),
        "Name=Value, one a line; ${VAR} for a secret, as for the environment."),
      disabled: field("disabled", "Disabled", el("input", { type: "checkbox" }), "Kept in the config, not started."),
      allow: field("tools.allow", "Tools allowed", el("input", { type: "text", autocomplete: "off", spellcheck: "false", placeholder: "search_* get_issue" }),
        "Globs of the server's tool names, separated by spaces; empty: every tool."),
      deny: field("tools.deny", "Tools denied", el("input", { type: "text", autocomplete: "off", spellcheck: "false" }),
        "Globs of tools left out."),
    };
    const general = el("p", { class: "error", role: "alert", hidden: true });
    const submit = el("button", { type: "submit", text: name ? "Save" : "Add" });
    const cancel = el("button", { type: "button", text: "Cancel" });
    const box = el("form", { class: "server-form panel-inner", "aria-label": name ? "Edit " + name : "Add a server", novalidate: true },
      el("h3", { text: name ? "Edit " + name : "Add a server" }),
      inFile === false ? el("p", { class: "muted", text: "There is no config file: a change made here is not saved, and lasts until the service stops." }) : null,
      ...Object.values(f).map((x) => x.wrap), general, el("div", { class: "row" }, submit, cancel));
    form = { el: box, fields: f, name, orig, general, submit };
    fill(f, name, orig);
    f.type.input.addEventListener("change", () => showTransport(f));
    cancel.addEventListener("click", closeForm);
    box.addEventListener("submit", (ev) => { ev.preventDefault(); save(); });
    formBox.textContent = "";
    formBox.append(box);
    formBox.hidden = false;
    (name ? f.type.input : f.name.input).focus();
  }

  function closeForm() {
    form = null;
    formBox.hidden = true;
    formBox.textContent = "";
  }

  // transportOf is the transport an entry has, said or inferred as the config does.
  function transportOf(e) {
    const t = String(e.type || e.transport || "").toLowerCase();
    if (t === "stdio" || t === "sse") return t;
    if (t) return "http";
    if (e.command) return "stdio";
    if (e.url && /\/sse\/?$/.test(e.url.split("?")[0])) return "sse";
    return e.url ? "http" : "stdio";
  }

  const lines = (m) => Object.entries(m || {}).map(([k, v]) => `${k}=${v}`).join("\n");

  function fill(f, name, e) {
    f.name.input.value = name || "";
    f.name.input.readOnly = !!name;
    f.type.input.value = transportOf(e);
    f.command.input.value = e.command || "";
    f.args.input.value = (e.args || []).join("\n");
    f.url.input.value = e.url || "";
    f.env.input.value = lines(e.env);
    f.headers.input.value = lines(e.headers);
    f.disabled.input.checked = e.disabled === true || e.enabled === false;
    const tools = e.tools || {};
    f.allow.input.value = (tools.allow || []).join(" ");
    f.deny.input.value = (tools.deny || []).join(" ");
    showTransport(f);
  }

  function showTransport(f) {
    const stdio = f.type.input.value === "stdio";
    for (const k of ["command", "args", "env"]) f[k].wrap.hidden = !stdio;
    for (const k of ["url", "headers"]) f[k].wrap.hidden = stdio;
  }

  // pairs reads KEY=VALUE lines; a line without "=" is an error beside the field.
  function pairs(fld) {
    const out = {};
    for (const raw of fld.input.value.split("\n")) {
      const line = raw.trim();
      if (!line) continue;
      const i = line.indexOf("=");
      if (i <= 0) throw Object.assign(new Error(`"${line}": write KEY=VALUE`), { field: fld.wrap.dataset.field });
      out[line.slice(0, i).trim()] = line.slice(i + 1);
    }
    return Object.keys(out).length ? out : undefined;
  }

  const globs = (s) => s.split(/[\s,]+/).filter(Boolean);

  // entryOf is the entry the form says, in a config file's terms.
  function entryOf(f, orig) {
    const t = f.type.input.value;
    const e = {};
    if (t === "stdio") {
      if (f.command.input.value.trim()) e.command = f.command.input.value.trim();
      const args = f.args.input.value.split("\n").map((a) => a.trim()).filter(Boolean);
      if (args.length) e.args = args;
      const env = pairs(f.env);
      if (env) e.env = env;
    } else {
      if (f.url.input.value.trim()) e.url = f.url.input.value.trim();
      const headers = pairs(f.headers);
      if (headers) e.headers = headers;
    }
    if (orig.type && transportOf({ type: orig.type }) === t) e.type = orig.type; // as the file spells it
    else if (orig.type || transportOf(e) !== t) e.type = t;
    if (f.disabled.input.checked) e.disabled = true;
    const allow = globs(f.allow.input.value), deny = globs(f.deny.input.value);
    if (allow.length || deny.length) {
      e.tools = {};
      if (allow.length) e.tools.allow = allow;
      if (deny.length) e.tools.deny = deny;
    }
    return e;
  }

  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  // patchOf is the merge patch from orig to next over the fields the form shows;
  // the others (description, timeouts, …) are left as they are. A masked value
  // left masked is not sent.
  function patchOf(orig, next) {
    const p = {};
    for (const k of ["command", "args", "url"]) {
      if (!same(orig[k], next[k])) p[k] = next[k] === undefined ? null : next[k];
    }
    if (orig.type !== next.type) p.type = next.type === undefined ? null : next.type;
    if (orig.transport !== undefined && transportOf(orig) !== transportOf(next)) p.transport = null;
    for (const k of ["env", "headers"]) {
      const a = orig[k] || {}, b = next[k] || {}, m = {};
      for (const key of Object.keys(a)) if (!(key in b)) m[key] = null;
      for (const [key, v] of Object.entries(b)) if (a[key] !== v && v !== MASKED) m[key] = v;
      if (next[k] === undefined && orig[k] !== undefined) p[k] = null;
      else if (Object.keys(m).length) p[k] = m;
    }
    const wasOff = orig.disabled === true || orig.enabled === false;
    if (wasOff !== !!next.disabled) {
      p.disabled = next.disabled ? true : null;
      if (orig.enabled !== undefined) p.enabled = null;
    }
    if (!same(orig.tools || {}, next.tools || {})) {
      p.tools = next.tools ? { allow: next.tools.allow || null, deny: next.tools.deny || null } : null;
    }
    return p;
  }

  function clearErrors() {
    if (!form) return;
    form.general.hidden = true;
    for (const x of Object.values(form.fields)) {
      x.error.hidden = true;
      x.error.textContent = "";
      x.input.removeAttribute("aria-invalid");
    }
  }

  // showError puts the message beside the field it names ("env.TOKEN" is env's,
  // "transport" type's), else under the form.
  function showError(e) {
    if (!form) return;
    const name = e.field || "";
    const key = name === "transport" ? "type" : name;
    const x = Object.values(form.fields).find((x) => x.wrap.dataset.field === key) ||
      Object.values(form.fields).find((x) => x.wrap.dataset.field === key.split(/[.[]/)[0]);
    if (x && !x.wrap.hidden) {
      x.error.textContent = e.message;
      x.error.hidden = false;
      x.input.setAttribute("aria-invalid", "true");
      x.input.focus();
      return;
    }
    form.general.textContent = e.message;
    form.general.hidden = false;
  }

  async function save() {
    const f = form;
    clearErrors();
    f.submit.disabled = true;
    try {
      const next = entryOf(f.fields, f.orig);
      if (f.name) {
        const patch = patchOf(f.orig, next);
        if (Object.keys(patch).length) saved(f.name + " changed", await send("PATCH", path(f.name), patch));
      } else {
        const name = f.fields.name.input.value.trim();
        saved(name + " added", await send("POST", "/v1/servers", { name, ...next }));
      }
      if (form === f) closeForm();
    } catch (e) {
      if (form === f) showError(e);
    } finally {
      f.submit.disabled = false;
    }
  }

  // ---- each server's card ----

  function controls(name, card) {
    const error = el("p", { class: "error server-edit-error", role: "alert", hidden: true });
    const fail = (what) => (e) => { error.textContent = what + ": " + e.message; error.hidden = false; };
    const toggle = el("input", { type: "checkbox", role: "switch", "aria-label": "Enabled: " + name });
    // The card gets its state right after this hook: read it then.
    queueMicrotask(() => { toggle.checked = card.dataset.state !== "disabled"; });
    toggle.addEventListener("change", async () => {
      error.hidden = true;
      toggle.disabled = true;
      const on = toggle.checked;
      try {
        const orig = (await send("GET", path(name) + "/config")).config || {};
        const p = { disabled: on ? null : true };
        if (orig.enabled !== undefined) p.enabled = null;
        saved(name + (on ? " enabled" : " disabled"), await send("PATCH", path(name), p));
      } catch (e) {
        toggle.checked = !on;
        fail(on ? "Enabling failed" : "Disabling failed")(e);
      } finally {
        toggle.disabled = false;
      }
    });
    const edit = el("button", { type: "button", "aria-label": "Edit " + name, text: "Edit" });
    edit.addEventListener("click", async () => {
      error.hidden = true;
      try {
        const { config, saved: inFile } = await send("GET", path(name) + "/config");
        openForm(name, config || {}, inFile);
      } catch (e) { fail("Cannot edit")(e); }
    });
    const del = el("button", { type: "button", class: "danger", "aria-label": "Delete " + name, text: "Delete" });
    const confirmBox = el("span", { class: "server-confirm", hidden: true },
      el("span", { text: `Delete ${name} from the config?` }));
    const yes = el("button", { type: "button", class: "danger", "aria-label": "Yes, delete " + name, text: "Yes, delete" });
    const no = el("button", { type: "button", text: "Keep" });
    confirmBox.append(yes, no);
    del.addEventListener("click", () => { confirmBox.hidden = false; del.hidden = true; no.focus(); });
    no.addEventListener("click", () => { confirmBox.hidden = true; del.hidden = false; });
    yes.addEventListener("click", async () => {
      yes.disabled = true;
      try {
        // DELETE answers no body: whether the config has a file is asked first.
        const inFile = await send("GET", path(name) + "/config").then((c) => c.saved, () => undefined);
        await send("DELETE", path(name));
        saved(name + " removed", { saved: inFile });
        card.remove(); // its last event says closed; a card of a server added again comes back
        if (form && form.name === name) closeForm();
      } catch (e) {
        fail("Delete failed")(e);
      } finally {
        yes.disabled = false;
        confirmBox.hidden = true;
        del.hidden = false;
      }
    });
    const box = el("span", { class: "server-edit", hidden: !allowed },
      el("label", { class: "server-switch" }, toggle, " Enabled"), edit, del, confirmBox);
    return { box, toggle, error };
  }

  sb.on("card", (name, actions, card) => {
    const c = controls(name, card);
    actions.append(c.box);
    card.append(c.error);
    cards.set(name, { card, controls: c.box, toggle: c.toggle });
  });

  // show keeps a card's switch with its state, and puts back the card of a server
  // deleted here and added again.
  function show(s) {
    const c = cards.get(s.name);
    if (!c) return;
    if (!c.toggle.disabled) c.toggle.checked = s.state !== "disabled";
    if (!c.card.isConnected && s.state !== "closed") $("servers").append(c.card);
  }

  sb.on("snapshot", (data) => {
    for (const s of data.servers || []) show(s);
    loadAllowed();
  });
  sb.on("server", show);
  sb.on("forget", () => {
    allowed = false;
    delete section.dataset.editable;
    render();
  });
})();
