// Switchboard dashboard: resources and prompts (see app.js, window.switchboard).
//
// Two tabs over GET /v1/resources, /v1/resources/templates and /v1/prompts, every
// entry labelled with its server. A resource opens on a click (GET
// /v1/resources/read): text in a <pre>, an image as an <img> of a data: URL (the
// page's policy lets data: images in), any other blob as a link that downloads it
// (a data: URL too: the policy has no blob:). A template gets a field per variable
// and reads the URI they make; a prompt gets a field per argument and shows the
// messages POST /v1/prompts/{name}/get returns. Everything a server sends is text.
"use strict";
(() => {
  const sb = window.switchboard;
  const { el } = sb;
  const root = document.getElementById("resources");

  // The two tabs and their panels.
  const tabs = el("div", { class: "res-tabs", role: "tablist", "aria-label": "Resources and prompts" });
  const panels = {};
  const counts = {};
  for (const [key, label] of [["resources", "Resources"], ["prompts", "Prompts"]]) {
    counts[key] = el("span", { class: "muted" });
    const b = el("button", { type: "button", role: "tab", id: `res-tab-${key}`, "data-tab": key, "aria-controls": `res-panel-${key}` }, label + " ", counts[key]);
    b.addEventListener("click", () => show(key));
    tabs.append(b);
    panels[key] = el("div", { class: "res-panel", role: "tabpanel", id: `res-panel-${key}`, "aria-labelledby": `res-tab-${key}`, "data-panel": key });
  }
  const listError = el("p", { class: "error", role: "alert", hidden: true });
  const resList = el("div", { id: "res-list" });
  const tmplList = el("div", { id: "res-templates" });
  // The view of a read goes right after what was clicked (a resource's server group, a
  // template's form): where the person looks, not under every template.
  const view = el("div", { id: "res-view", "aria-live": "polite" });
  const promptList = el("div", { id: "prompt-list" });
  panels.resources.append(resList, el("h3", { class: "res-sub", text: "Templates" }), tmplList, view);
  panels.prompts.append(promptList);
  root.append(tabs, listError, panels.resources, panels.prompts);

  function show(key) {
    for (const b of tabs.children) b.setAttribute("aria-selected", b.dataset.tab === key ? "true" : "false");
    for (const [k, p] of Object.entries(panels)) p.hidden = k !== key;
  }
  show("resources");

  // What was last rendered of each list (its JSON): a list that has not changed is
  // not rendered again, so that a server's event keeps what was typed in the forms.
  let shown = { resources: "", templates: "", prompts: "" };
  let reloadTimer = 0;
  let viewSeq = 0; // the latest read asked for: an older answer is not shown over it

  async function load() {
    const my = sb.epoch();
    let res, tmpl, prompts, err;
    try {
      [res, tmpl, prompts] = await Promise.all([
        sb.api("/v1/resources"), sb.api("/v1/resources/templates"), sb.api("/v1/prompts")]);
    } catch (e) {
      err = e;
    }
    if (my !== sb.epoch()) return;
    listError.textContent = err ? "Could not list the resources and prompts: " + (err.describe ? err.describe() : String(err)) : "";
    listError.hidden = !err;
    if (err) return;
    render("resources", res.resources, renderResources);
    render("templates", tmpl.templates, renderTemplates);
    render("prompts", prompts.prompts, renderPrompts);
    counts.resources.textContent = `(${res.resources.length + tmpl.templates.length})`;
    counts.prompts.textContent = `(${prompts.prompts.length})`;
  }

  function render(key, list, f) {
    const json = JSON.stringify(list);
    if (json === shown[key]) return;
    shown[key] = json;
    f(list);
  }

  function scheduleLoad() {
    clearTimeout(reloadTimer);
    reloadTimer = setTimeout(load, 300);
  }

  // byServer groups a list by its entries' server, in the order the servers come.
  function byServer(list) {
    const groups = new Map();
    for (const x of list) {
      if (!groups.has(x.server)) groups.set(x.server, []);
      groups.get(x.server).push(x);
    }
    return groups;
  }

  function serverHeading(name) {
    return el("h4", { class: "res-server", "data-server": name, text: name });
  }

  // ---- resources ----

  // home puts the view back at the panel's end before a list it sits in is rendered
  // again.
  function home(list) {
    if (list.contains(view)) panels.resources.append(view);
  }

  function renderResources(list) {
    home(resList);
    resList.textContent = "";
    if (!list.length) {
      resList.append(el("p", { class: "muted", text: "No server lists resources." }));
      return;
    }
    for (const [server, items] of byServer(list)) {
      const ul = el("ul", { class: "res-items" });
      for (const r of items) {
        const b = el("button", { type: "button", "data-uri": r.uri, "data-server": r.server, title: r.uri },
          el("span", { class: "name", text: r.title || r.name || r.uri }), " ",
          el("span", { class: "muted", text: [r.mimeType, r.size ? r.size + " bytes" : ""].filter(Boolean).join(" · ") }),
          el("span", { class: "desc", text: r.description || r.uri }));
        b.addEventListener("click", () => read(r.uri, b.closest(".res-group")));
        ul.append(el("li", {}, b));
      }
      resList.append(el("section", { class: "res-group", "data-server": server }, serverHeading(server), ul));
    }
  }

  // read reads uri and shows its contents in the view, put after the element near
  // (what was clicked) and scrolled into sight.
  async function read(uri, near) {
    const my = sb.epoch(), seq = ++viewSeq;
    for (const b of resList.querySelectorAll("button[data-uri]")) b.setAttribute("aria-current", b.dataset.uri === uri ? "true" : "false");
    if (near && near.isConnected) near.after(view);
    view.textContent = "";
    view.append(el("p", { class: "muted", text: "Reading " + uri + "…" }));
    view.scrollIntoView({ block: "nearest" });
    let res, err;
    try {
      res = await sb.api("/v1/resources/read?uri=" + encodeURIComponent(uri));
    } catch (e) {
      err = e;
    }
    if (my !== sb.epoch() || seq !== viewSeq) return;
    view.textContent = "";
    if (err) {
      view.append(el("div", { class: "result is-error", role: "alert" },
        el("strong", { class: "error", text: "Read failed" }), el("pre", { text: err.describe ? err.describe() : String(err) })));
      view.scrollIntoView({ block: "nearest" });
      return;
    }
    const out = el("div", { class: "result res-read", "data-uri": res.uri },
      el("strong", { text: res.uri }), el("span", { class: "muted", text: " · " + res.server }));
    for (const c of res.contents) out.append(content(c));
    if (!res.contents.length) out.append(el("p", { class: "muted", text: "(no contents)" }));
    view.append(out);
    view.scrollIntoView({ block: "nearest" });
  }

  // safeType is a MIME type fit to put in a data: URL (type/subtype, nothing else),
  // or fallback.
  function safeType(t, fallback) {
    return /^[\w.+-]+\/[\w.+-]+$/.test(t || "") ? t : fallback;
  }

  // content shows one part of a read: text as text, an image as an image, anything
  // else as a download.
  function content(c) {
    const head = el("p", { class: "muted res-part" }, c.mimeType || "no type given");
    if (typeof c.text === "string") return el("div", {}, head, el("pre", { class: "res-text", text: c.text }));
    const type = safeType(c.mimeType, "application/octet-stream");
    const url = `data:${type};base64,${c.blob || ""}`;
    const bytes = Math.floor(((c.blob || "").replace(/=+$/, "").length * 3) / 4);
    if (type.startsWith("image/")) {
      return el("div", {}, head, el("img", { class: "res-image", src: url, alt: `${c.uri} (${type})` }));
    }
    const file = (c.uri.split(/[/\\?#:]/).filter(Boolean).pop() || "resource").replace(/[^\w.-]/g, "_");
    return el("div", {}, head, el("a", { class: "res-download", href: url, download: file, text: `Download ${file} (${bytes} bytes)` }));
  }

  // ---- templates ----

  // templateParts parses an RFC 6570 template: its literal text and expressions, each
  // with its operator and variable names.
  function templateParts(t) {
    const parts = [];
    const re = /\{([+#./;?&]?)([^}]*)\}/g;
    let last = 0, m;
    while ((m = re.exec(t))) {
      parts.push(t.slice(last, m.index));
      parts.push({ op: m[1], vars: m[2].split(",").map((v) => v.replace(/(:\d+|\*)$/, "")).filter(Boolean) });
      last = re.lastIndex;
    }
    parts.push(t.slice(last));
    return parts;
  }

  // expand fills a template's parts with values (level 3 of RFC 6570: reserved,
  // fragment, label, path, parameters and query expansion; empty values left out).
  function expand(parts, values) {
    const enc = (op, v) => (op === "+" || op === "#" ? encodeURI(v) : encodeURIComponent(v));
    return parts.map((p) => {
      if (typeof p === "string") return p;
      const given = p.vars.filter((v) => values[v] !== undefined && values[v] !== "");
      if (!given.length) return "";
      switch (p.op) {
        case "?": case "&": return p.op + given.map((v) => `${v}=${enc("", values[v])}`).join("&");
        case ";": return given.map((v) => `;${v}=${enc("", values[v])}`).join("");
        case "/": case ".": return given.map((v) => p.op + enc("", values[v])).join("");
        case "#": return "#" + given.map((v) => enc("#", values[v])).join(",");
        default: return given.map((v) => enc(p.op, values[v])).join(",");
      }
    }).join("");
  }

  function renderTemplates(list) {
    home(tmplList);
    tmplList.textContent = "";
    if (!list.length) {
      tmplList.append(el("p", { class: "muted", text: "No server has resource templates." }));
      return;
    }
    let n = 0;
    for (const [server, items] of byServer(list)) {
      const group = el("section", { class: "res-group", "data-server": server }, serverHeading(server));
      for (const t of items) group.append(templateForm(t, n++));
      tmplList.append(group);
    }
  }

  function templateForm(t, n) {
    const parts = templateParts(t.uriTemplate);
    const vars = [...new Set(parts.filter((p) => typeof p !== "string").flatMap((p) => p.vars))];
    const inputs = {};
    const fields = vars.map((v) => {
      const id = `tmpl-${n}-${v}`;
      inputs[v] = el("input", { id, type: "text", name: v, autocomplete: "off" });
      return el("div", { class: "field" }, el("label", { for: id, text: v }), inputs[v]);
    });
    const form = el("form", { class: "template-form", "data-template": t.uriTemplate, "data-server": t.server, novalidate: true },
      el("p", {}, el("code", { text: t.uriTemplate }), " ", el("span", { class: "muted", text: [t.name, t.mimeType].filter(Boolean).join(" · ") })),
      t.description ? el("p", { class: "hint", text: t.description }) : null,
      ...fields,
      el("div", { class: "row" }, el("button", { type: "submit", text: "Read" })));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const values = {};
      for (const v of vars) values[v] = inputs[v].value;
      read(expand(parts, values), form);
    });
    return form;
  }

  // ---- prompts ----

  function renderPrompts(list) {
    promptList.textContent = "";
    if (!list.length) {
      promptList.append(el("p", { class: "muted", text: "No server has prompts." }));
      return;
    }
    let n = 0;
    for (const [server, items] of byServer(list)) {
      const group = el("section", { class: "res-group", "data-server": server }, serverHeading(server));
      for (const p of items) group.append(promptForm(p, n++));
      promptList.append(group);
    }
  }

  function promptForm(p, n) {
    const inputs = [];
    const fields = p.arguments.map((a) => {
      const id = `prompt-${n}-${a.name}`;
      const input = el("input", { id, type: "text", name: a.name, required: a.required, autocomplete: "off" });
      inputs.push([a, input]);
      return el("div", { class: "field" },
        el("label", { for: id }, a.title || a.name, a.required ? el("span", { class: "required", text: " *", "aria-hidden": "true" }) : null,
          a.description ? el("span", { class: "hint", text: a.description }) : null),
        input);
    });
    const get = el("button", { type: "submit", text: "Get" });
    const result = el("div", { class: "prompt-result", "aria-live": "polite" });
    const form = el("form", { class: "prompt-form", "data-prompt": p.name, "data-server": p.server, novalidate: true },
      el("p", {}, el("strong", { class: "name", text: p.title || p.name }), " ",
        el("span", { class: "muted", text: p.title && p.title !== p.name ? p.name : "" })),
      p.description ? el("p", { class: "hint", text: p.description }) : null,
      ...fields,
      el("div", { class: "row" }, get),
      result);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      result.textContent = "";
      const missing = inputs.filter(([a, i]) => a.required && i.value === "").map(([a]) => a.name);
      if (missing.length) {
        result.append(el("p", { class: "error", role: "alert", text: "Required: " + missing.join(", ") }));
        inputs.find(([a]) => a.name === missing[0])[1].focus();
        return;
      }
      const args = {};
      for (const [a, i] of inputs) if (i.value !== "") args[a.name] = i.value;
      const my = sb.epoch();
      get.disabled = true;
      result.append(el("p", { class: "muted", text: "Getting…" }));
      let res, err;
      try {
        res = await sb.api(`/v1/prompts/${encodeURIComponent(p.name)}/get`, { method: "POST", body: { arguments: args } });
      } catch (e) {
        err = e;
      }
      get.disabled = false;
      if (my !== sb.epoch()) return;
      result.textContent = "";
      if (err) {
        result.append(el("div", { class: "result is-error", role: "alert" },
          el("strong", { class: "error", text: "Get failed" }), el("pre", { text: err.describe ? err.describe() : String(err) })));
        return;
      }
      const out = el("div", { class: "result" });
      if (res.description) out.append(el("p", { class: "muted", text: res.description }));
      for (const m of res.messages) {
        out.append(el("div", { class: "msg " + (m.role === "assistant" ? "assistant" : "user"), "data-role": m.role },
          el("div", { class: "step", text: m.role }), el("span", { class: "msg-text", text: m.text })));
      }
      if (!res.messages.length) out.append(el("p", { class: "muted", text: "(no messages)" }));
      result.append(out);
    });
    return form;
  }

  // ---- what the page is told ----

  function forget() {
    clearTimeout(reloadTimer);
    viewSeq++;
    shown = { resources: "", templates: "", prompts: "" };
    resList.textContent = "";
    tmplList.textContent = "";
    promptList.textContent = "";
    view.textContent = "";
    listError.hidden = true;
    counts.resources.textContent = counts.prompts.textContent = "";
  }

  sb.on("snapshot", load);
  // Every server event may change the lists: a server ready or gone, or a list
  // re-listed after the server said it changed (the event says toolsChanged only
  // for tools, so any event reloads; unchanged lists are not rendered again).
  sb.on("server", scheduleLoad);
  sb.on("forget", forget);
})();
