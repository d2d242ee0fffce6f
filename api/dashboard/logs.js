// Switchboard dashboard: logs (see app.js, window.switchboard).
// A "Log" button on each server's card opens the server's log (GET
// /v1/servers/{name}/log?follow=1): its backlog, then every new entry as it comes,
// until Close (or Escape), another person, or the server leaving the config. What a
// server writes is untrusted: it is shown as text only.
"use strict";
(() => {
  const sb = window.switchboard;
  const el = sb.el;
  const BACKLOG = 500; // entries loaded when the view opens (the server keeps 1,000)
  const MAX_ROWS = 2000; // rows kept on the page; the oldest go first

  let view = null; // {dialog, title, status, lines}, made on first use
  let abort = null; // the open stream's AbortController

  function makeView() {
    const title = el("h2", { id: "log-title" });
    const status = el("p", { class: "log-status muted", role: "status" });
    const lines = el("div", { class: "log-lines", role: "log", "aria-labelledby": "log-title", tabindex: "0" });
    const close = el("button", { type: "button", class: "log-close", text: "Close" });
    const dialog = el("dialog", { class: "log-view", "aria-labelledby": "log-title" },
      el("div", { class: "log-head" }, title, close), status, lines);
    close.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", stop); // Close, Escape
    document.body.append(dialog);
    return { dialog, title, status, lines };
  }

  function stop() {
    if (abort) abort.abort();
    abort = null;
    if (view) delete view.dialog.dataset.live;
  }

  // atBottom: the person has not scrolled up, so new lines scroll into view.
  function atBottom(box) {
    return box.scrollHeight - box.scrollTop - box.clientHeight < 8;
  }

  function row(e) {
    const kind = e.kind === "mcp" && e.level ? "mcp " + e.level : e.kind;
    let text = e.text;
    if (e.kind === "state") {
      const change = (e.from ? e.from + " → " : "→ ") + e.state;
      text = e.text ? change + ": " + e.text : change;
    }
    const r = el("div", { class: "log-line log-" + e.kind, "data-seq": String(e.seq), "data-kind": e.kind },
      el("time", { class: "log-time", datetime: e.time, title: e.time, text: sb.clock(e.time) }),
      el("span", { class: "log-kind", text: kind }),
      el("span", { class: "log-text", text }));
    if (e.kind === "state") r.dataset.state = e.state;
    return r;
  }

  function append(node) {
    const box = view.lines;
    const follow = atBottom(box);
    box.append(node);
    while (box.childElementCount > MAX_ROWS) box.firstElementChild.remove();
    if (follow) box.scrollTop = box.scrollHeight;
  }

  async function open(name) {
    stop();
    if (!view) view = makeView();
    const ctl = new AbortController();
    abort = ctl;
    const epoch = sb.epoch();
    view.title.textContent = "Log of " + name;
    view.lines.textContent = "";
    view.status.textContent = "Loading…";
    view.dialog.dataset.server = name;
    if (!view.dialog.open) view.dialog.showModal();
    const live = () => abort === ctl && sb.epoch() === epoch;
    try {
      const res = await sb.api(`/v1/servers/${encodeURIComponent(name)}/log?follow=1&limit=${BACKLOG}`, { stream: true, signal: ctl.signal });
      if (!live()) return;
      view.status.textContent = "Live";
      view.dialog.dataset.live = "true";
      await sb.readEvents(res, (ev, d) => {
        if (!live()) return;
        if (ev === "log") append(row(d));
        else if (ev === "missed") append(el("div", { class: "log-line log-missed", text: `… ${d.count} ${d.count === 1 ? "entry" : "entries"} not shown` }));
        else if (ev === "end") view.status.textContent = "The log ended: " + d.reason + ".";
      });
      if (!live()) return;
      delete view.dialog.dataset.live;
      if (view.status.textContent === "Live") view.status.textContent = "The stream ended; close and open the log again to go on.";
    } catch (e) {
      if (e.name === "AbortError" || !live()) return;
      delete view.dialog.dataset.live;
      view.status.textContent = "Cannot show the log: " + (e.describe ? e.describe() : String(e));
    }
  }

  // A server's log is for admins when the service knows who calls (a line may quote
  // anyone's call): the button shows once GET /v1/me says so (without identities
  // everyone is; a server without /v1/me answers for itself, 403 or the log).
  let mayRead = false;
  const buttons = new Set();
  sb.on("me", (who) => {
    mayRead = !who || !!who.admin;
    for (const b of buttons) b.hidden = !mayRead;
  });

  sb.on("card", (name, actions) => {
    const b = el("button", { type: "button", class: "log-open", "aria-label": "Log of " + name, text: "Log", hidden: !mayRead });
    b.addEventListener("click", () => open(name));
    actions.append(b);
    buttons.add(b);
  });

  sb.on("forget", () => {
    mayRead = false;
    buttons.clear(); // the cards go too
    stop();
    if (view) {
      view.lines.textContent = "";
      if (view.dialog.open) view.dialog.close();
    }
  });
})();
