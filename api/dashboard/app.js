// Switchboard dashboard: plain JavaScript over the HTTP API, no framework, no build.
// Live state comes from GET /v1/events (server-sent events read with fetch, so that the
// token travels in the Authorization header, never in a request's URL).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const TOKEN_KEY = "switchboard.token";
  // A service that made its own token prints the dashboard's address with it in the
  // fragment (#token=…, which no request carries): kept for this tab as a typed one
  // is, and dropped from the address bar, its history entry and what is bookmarked.
  const given = new URLSearchParams(location.hash.slice(1)).get("token");
  if (given) {
    sessionStorage.setItem(TOKEN_KEY, given.trim());
    history.replaceState(null, "", location.pathname + location.search);
  }
  let token = sessionStorage.getItem(TOKEN_KEY) || "";
  // The sign-in at the service's identity provider (signin.js, loaded before this
  // script), when the service names one; the page takes a pasted token either way.
  const signin = window.switchboardSignIn;
  signin.onToken((t) => { token = t; });
  if (given) signin.forget(); // a token given in the address takes the place of a sign-in

  // The header's links jump between the page's sections (plain #anchors: the
  // keyboard, the address and the Back button work as on any page); the link of the
  // section in the address is marked. The header stays on screen: its height is
  // --head, which the jumps land below (style.css).
  function markSection() {
    for (const a of document.querySelectorAll("#sections a")) {
      a.setAttribute("aria-current", a.getAttribute("href") === location.hash ? "true" : "false");
    }
  }
  window.addEventListener("hashchange", markSection);
  markSection();
  const head = document.querySelector("header");
  new ResizeObserver(() => document.documentElement.style.setProperty("--head", head.offsetHeight + "px")).observe(head);
  // Opened at a section's address, the page is still short, its lists unloaded, when
  // the browser jumps: the jump is made again as they fill in, until the person moves.
  const landing = /^#[\w-]+-section$/.test(location.hash) && document.querySelector(location.hash);
  if (landing) {
    const land = new ResizeObserver(() => landing.scrollIntoView());
    land.observe(document.querySelector("main"));
    for (const ev of ["wheel", "touchstart", "keydown", "mousedown", "hashchange"]) {
      window.addEventListener(ev, () => land.disconnect(), { once: true, capture: true });
    }
  }
  // epoch changes with the person (a sign-out, another token): what was asked for the
  // last one and answers afterwards is dropped, never shown to the next.
  let epoch = 0;

  // el builds an element: el("p", {class: "x", text: "hi"}, child, "text", ...).
  function el(tag, attrs, ...children) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "text") n.textContent = v;
      else if (k === "class") n.className = v;
      else if (k.startsWith("on")) n.addEventListener(k.slice(2), v);
      else n.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) if (c !== null && c !== undefined) n.append(c);
    return n;
  }

  const clock = (t) => new Date(t).toLocaleTimeString([], { hour12: false });
  const count = (n, what) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const ms = (x) => (x < 10 ? x.toFixed(1) : Math.round(x)) + " ms";

  // ---- HTTP ----

  class APIError extends Error {
    constructor(status, code, message, suggestions, field) {
      super(message);
      this.status = status;
      this.code = code;
      this.suggestions = suggestions || [];
      this.field = field || ""; // the request's field a 400 names, when it names one
    }
    describe() {
      let s = this.status ? `${this.status} ${this.code || ""}: ${this.message}` : this.message;
      if (this.suggestions.length) s += ` (did you mean ${this.suggestions.join(", ")}?)`;
      return s;
    }
  }

  // api sends a request with the token; it returns the decoded JSON (or, with
  // stream: true, the Response) and throws an APIError for every failure.
  async function api(path, { method = "GET", body, stream = false, signal, again = false } = {}) {
    const sent = token;
    const headers = {};
    if (token) headers.Authorization = "Bearer " + token;
    if (stream) headers.Accept = "text/event-stream";
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let res;
    try {
      res = await fetch(path, { method, headers, signal, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      if (e.name === "AbortError") throw e;
      throw new APIError(0, "network", "cannot reach the server (" + e.message + ")");
    }
    if (!res.ok) {
      let code = "", message = res.status + " " + res.statusText, suggestions, field;
      try {
        const b = await res.json();
        ({ code, message, suggestions, field } = b.error);
      } catch (_) { /* not our JSON: keep the status line */ }
      if (res.status === 401 && sent && !again) {
        // A token of the provider's sign-in that expired: renewed (once for the
        // requests that met it together), and the request sent again with it.
        const renewed = sent !== token ? token : await signin.renew();
        if (renewed && renewed === token) return api(path, { method, body, stream, signal, again: true });
      }
      if (res.status === 401 && sent === token) askToken(refusal(message));
      throw new APIError(res.status, code, message, suggestions, field);
    }
    if (stream) return res;
    if (res.status === 204) return null; // no content: a DELETE's answer
    return res.json();
  }

  // readEvents calls onEvent(name, data) for each server-sent event of res, until the
  // stream ends.
  async function readEvents(res, onEvent) {
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "", name = "", data = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        let line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.endsWith("\r")) line = line.slice(0, -1);
        if (line === "") {
          if (data.length) onEvent(name || "message", JSON.parse(data.join("\n")));
          name = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue; // heartbeat
        const c = line.indexOf(":");
        const field = c < 0 ? line : line.slice(0, c);
        let v = c < 0 ? "" : line.slice(c + 1);
        if (v.startsWith(" ")) v = v.slice(1);
        if (field === "event") name = v;
        else if (field === "data") data.push(v);
      }
    }
  }

  // ---- token ----

  // refusal is what the form says of a token the server refused (its message says
  // why): a sign-in that ended asks for another.
  function refusal(why) {
    if (!token) return "";
    if (signin.signedIn()) return `Your sign-in has ended: sign in again (the server says: ${why}).`;
    return "The server refused this token.";
  }

  function askToken(message) {
    setConn("token", "Token needed");
    $("token-form").hidden = false;
    message = signin.takeError() || message; // a failed sign-in says why first
    $("token-error").hidden = !message;
    $("token-error").textContent = message || "";
    $("signin").hidden = !signin.available();
    $("signin-start").textContent = "Sign in with " + signin.provider();
    if (signin.available()) $("signin-start").focus();
    else $("token").focus();
    if (!servers.size) $("servers").textContent = "Waiting for the token.";
  }

  // Sign in sends the person to the provider; this page gets them back signed in
  // (signin.js), or says why not.
  $("signin-start").addEventListener("click", () => {
    $("signin-start").disabled = true;
    signin.begin().catch((e) => {
      $("signin-start").disabled = false;
      $("token-error").hidden = false;
      $("token-error").textContent = "Cannot sign in: " + e.message;
    });
  });

  // Back from the provider's page without signing in: the button works again.
  window.addEventListener("pageshow", () => { $("signin-start").disabled = false; });

  $("token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    forget(); // another token may be another person
    signin.forget(); // a pasted token takes the place of a sign-in
    token = $("token").value.trim();
    sessionStorage.setItem(TOKEN_KEY, token);
    $("token").value = "";
    $("token-form").hidden = true;
    connect();
  });

  // ---- who is signed in ----

  // me is GET /v1/me's answer ({"subject", "name", "admin"}), null until it has
  // answered (or on a server without that endpoint, or without identities).
  let me = null;

  async function loadMe() {
    const my = epoch;
    let who = null;
    try {
      who = await api("/v1/me");
    } catch (_) { /* an older server, or no identities: say nothing of who */ }
    if (my !== epoch) return;
    me = who;
    renderWho();
    for (const [, v] of servers) {
      v.parts.restart.hidden = !mayAdmin();
      if (v.last) showSignIn(v.last, v.parts);
    }
    hooks.me.forEach((f) => f(me));
  }

  // mayAdmin: restarting a server and signing a shared one in are an admin's when the
  // service knows who calls (403 otherwise); without identities everyone is one, and
  // until GET /v1/me answers the buttons show.
  const mayAdmin = () => !me || !!me.admin;

  function renderWho() {
    const who = me && (me.name || me.subject);
    let text = "";
    if (who) text = `Signed in as ${who}${me.admin ? " (admin)" : ""}`;
    else if (me && me.admin && token) text = "Signed in with the service's token (admin)";
    $("who-name").textContent = text;
    $("sign-out").hidden = !token;
    $("who").hidden = !text && !token;
  }

  // signOut forgets the token (and everything the page showed with it) and asks for
  // one again. A token of the provider's sign-in is also signed out at the provider,
  // when it says where (the page goes there, and comes back asking).
  $("sign-out").addEventListener("click", () => {
    forget();
    token = "";
    sessionStorage.removeItem(TOKEN_KEY);
    clearTimeout(retryTimer);
    if (streamAbort) streamAbort.abort();
    streamAbort = null;
    renderWho();
    askToken("");
    signin.signOut();
  });

  // forget clears what the page shows of the person it showed it to: their servers'
  // states, tools, calls, sessions and chat.
  function forget() {
    epoch++;
    hooks.forget.forEach((f) => f());
    me = null;
    renderWho();
    for (const [, v] of servers) clearTimeout(v.flapTimer);
    servers.clear();
    personal.clear();
    $("servers").textContent = "Waiting for the token.";
    tools = [];
    selected = "";
    renderTools();
    $("tool-detail").textContent = "";
    $("tool-detail").append(el("p", { class: "muted", text: "Choose a tool to see its form and call it." }));
    $("calls").querySelector("tbody").textContent = "";
    $("calls").hidden = true;
    $("calls-empty").hidden = false;
    sessionList = [];
    renderSessions();
    $("sessions-section").setAttribute("aria-busy", "true");
    $("sessions-note").hidden = true;
    sessionID = "";
    $("chat-log").textContent = "";
    $("chat-session").textContent = "";
    $("chat-on").hidden = $("chat-off").hidden = true; // until the next snapshot says
    if (chatAbort) chatAbort.abort();
  }

  // ---- live state ----

  let retryDelay = 1000, retryTimer = 0, streamAbort = null;

  function setConn(state, text) {
    const c = $("conn");
    c.dataset.state = state;
    c.textContent = text;
    $("servers").classList.toggle("stale", state !== "live");
  }

  function connect() {
    clearTimeout(retryTimer);
    if (streamAbort) streamAbort.abort();
    const ctl = new AbortController();
    streamAbort = ctl;
    setConn("connecting", "Connecting…");
    api("/v1/events", { stream: true, signal: ctl.signal })
      .then((res) => {
        setConn("live", "Live");
        retryDelay = 1000;
        return readEvents(res, onEvent);
      })
      .then(() => retry(ctl, "the server closed the stream"),
        (err) => {
          if (err.name === "AbortError" || ctl.signal.aborted) return;
          if (err.status === 401) return; // askToken waits for the user
          retry(ctl, err.describe ? err.describe() : String(err));
        });
  }

  function retry(ctl, why) {
    if (ctl !== streamAbort) return;
    const s = Math.round(retryDelay / 1000);
    setConn("down", `Disconnected: ${why}. Retrying in ${s} s; the states shown are the last known.`);
    retryTimer = setTimeout(connect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 15000);
  }

  function onEvent(name, data) {
    switch (name) {
      case "snapshot":
        hooks.snapshot.forEach((f) => f(data));
        $("version").textContent = data.version ? "version " + data.version : "";
        renderSnapshot(data);
        loadTools();
        loadMe();
        loadSessions();
        loadPersonal();
        break;
      case "server":
        hooks.server.forEach((f) => f(data));
        updateServer(data, true);
        if (data.toolsChanged) scheduleToolReload();
        schedulePersonalReload();
        break;
      case "call":
        addCall(data);
        break;
    }
  }

  // ---- servers ----

  const servers = new Map(); // name → {card, parts, flapTimer}
  const FLAP_WINDOW = "5 min"; // flapWindow in api/flapping.go

  function renderSnapshot(snap) {
    const box = $("servers");
    const seen = new Set();
    if (!servers.size) box.textContent = "";
    for (const s of snap.servers) {
      seen.add(s.name);
      updateServer(s, false);
    }
    for (const [name, v] of servers) {
      if (!seen.has(name)) { clearTimeout(v.flapTimer); v.card.remove(); servers.delete(name); }
    }
    if (!snap.servers.length) box.textContent = "No servers configured.";
    $("calls").querySelector("tbody").textContent = "";
    for (const c of snap.calls) addCall(c);
    renderChat(snap.model);
  }

  function serverCard(name) {
    const p = {
      state: el("span", { class: "state", role: "status" }),
      facts: el("div", { class: "facts" }),
      reason: el("div", { class: "reason error", hidden: true }),
      history: el("ul", { class: "history", "aria-label": "Recent changes of " + name }),
      stderr: el("pre"),
      stderrSummary: el("summary"),
      restartError: el("p", { class: "error", role: "alert", hidden: true }),
      signIn: el("button", { type: "button", class: "primary", "aria-label": "Sign in to " + name, text: "Sign in", hidden: true }),
      signInNote: el("p", { class: "sign-in-note", role: "status", hidden: true }),
      signInLink: el("a", { target: "_blank", rel: "noopener", text: "Open the sign-in page" }),
      signedIn: el("p", { class: "signed-in-note", role: "status", text: "You are signed in", hidden: true }),
    };
    p.signIn.addEventListener("click", () => signIn(name, p));
    const restart = p.restart = el("button", { type: "button", "aria-label": "Restart " + name, text: "Restart", hidden: !mayAdmin() });
    restart.addEventListener("click", async () => {
      restart.disabled = true;
      p.restartError.hidden = true;
      try {
        await api(`/v1/servers/${encodeURIComponent(name)}/restart`, { method: "POST" });
      } catch (e) {
        p.restartError.textContent = "Restart failed: " + e.describe();
        p.restartError.hidden = false;
      } finally {
        restart.disabled = false;
      }
    });
    const stderr = el("details", {}, p.stderrSummary, p.stderr);
    const card = el("article", { class: "server", "data-server": name },
      el("div", { class: "server-head" }, el("h3", { text: name }), p.state,
        p.actions = el("span", { class: "actions" }, p.signIn, restart)),
      p.facts, p.reason, p.signedIn, p.signInNote, p.restartError, stderr, p.history);
    p.stderrBox = stderr;
    hooks.card.forEach((f) => f(name, p.actions, card));
    return { card, parts: p };
  }

  function updateServer(s, live) {
    let v = servers.get(s.name);
    if (!v) {
      v = serverCard(s.name);
      servers.set(s.name, v);
      $("servers").append(v.card);
    }
    const p = v.parts;
    v.last = s;
    // A flapping server (it keeps losing its connection: api/flapping.go) is ready again
    // a second after each crash; its badge says flapping rather than ready.
    const flapping = !!s.flapping;
    const badge = flapping && s.state === "ready" ? "flapping" : s.state;
    p.state.textContent = badge;
    p.state.dataset.state = badge;
    p.state.title = flapping ? `${s.state}, but it lost its connection ${count(s.recentRestarts, "time")} in the last ${FLAP_WINDOW}` : "";
    v.card.dataset.state = s.state;
    v.card.dataset.flapping = flapping;
    const facts = [s.transport, count(s.tools, "tool"), count(s.restarts, "restart")];
    if (flapping) facts.push(`flapping: ${count(s.recentRestarts, "restart")} in ${FLAP_WINDOW}`);
    // It stops being flapping at flappingUntil unless it loses its connection again,
    // which would be an event of its own: no event says it then.
    clearTimeout(v.flapTimer);
    if (flapping && s.flappingUntil) {
      const wait = Math.max(Date.parse(s.flappingUntil) - Date.now(), 0) + 500;
      v.flapTimer = setTimeout(() => {
        if (servers.get(s.name) === v) updateServer({ ...s, flapping: false, flappingUntil: null }, false);
      }, wait);
    }
    if (s.serverName) facts.push(`${s.serverName} ${s.serverVersion || ""}`.trim());
    if (s.since) facts.push("since " + clock(s.since));
    p.facts.textContent = "";
    for (const f of facts) p.facts.append(el("span", { text: f }));
    showReason(p.reason, s.reason || "");
    showSignIn(s, p);
    const lines = s.stderr || [];
    p.stderrBox.hidden = !lines.length;
    p.stderrSummary.textContent = `stderr (last ${lines.length} lines)`;
    p.stderr.textContent = lines.join("\n");
    if (live) {
      // The change that is the server's error now is shown above, once: not again here.
      const change = s.change && s.change !== s.state && s.change !== s.reason ? s.change : "";
      const short = shortError(change);
      const li = el("li", { text: `${clock(Date.now())} ${s.state}${change ? " — " + short : ""}`, title: short !== change ? change : null });
      p.history.prepend(li);
      while (p.history.children.length > 5) p.history.lastChild.remove();
    }
  }

  // shortError is an error chain ("calling "initialize": sending …: connect:
  // connection refused") cut to what a person reads first: its first link and its
  // cause. A short one is left whole.
  function shortError(chain) {
    const max = 80;
    if (chain.length <= max) return chain;
    const links = chain.split(": ");
    const short = links.length > 2 ? `${links[0]}: … ${links[links.length - 1]}` : chain;
    return short.length <= max ? short : short.slice(0, max - 1) + "…";
  }

  // showReason shows why a server is in its state, short, the whole error chain in a
  // details element under it.
  function showReason(box, reason) {
    box.hidden = !reason;
    if (box.dataset.reason === reason) return; // an open details stays open
    box.dataset.reason = reason;
    box.textContent = "";
    const short = shortError(reason);
    if (short === reason) box.append(el("p", { text: reason }));
    else box.append(el("details", {}, el("summary", { text: short }), el("pre", { text: reason })));
  }

  // ---- sign-in ----

  // showSignIn offers the Sign in button on a server that waits for a sign-in only a
  // person can make, and says where a sign-in through this page stands (the API's
  // "signIn": waiting for the person, or why the last one failed).
  //
  // A server each person signs in to for themselves ("perUser" in GET /v1/servers,
  // asked with this person's token) says whether this person is signed in ("You are
  // signed in") or offers them the Sign in button, whatever its state for others.
  function showSignIn(s, p) {
    const mine = personal.get(s.name) || {};
    const perUser = mine.perUser === true && typeof mine.signedIn === "boolean";
    p.signIn.hidden = perUser ? mine.signedIn : s.state !== "needs_sign_in" || !mayAdmin();
    p.signedIn.hidden = !(perUser && mine.signedIn);
    const si = s.signIn;
    if (si && si.state === "waiting") {
      p.signInNote.className = "sign-in-note muted";
      p.signInNote.textContent = "Waiting for the sign-in at the authorization server… ";
      if (p.signInLink.href) p.signInNote.append(p.signInLink);
      p.signInNote.hidden = false;
    } else if (si && si.state === "failed") {
      p.signInNote.className = "sign-in-note error";
      p.signInNote.textContent = "Sign-in failed: " + si.error;
      p.signInNote.hidden = false;
    } else if (p.refusedURL && !p.signIn.hidden) {
      // This page refused the sign-in's URL (signIn): the service knows nothing of it.
      p.signInNote.className = "sign-in-note error";
      p.signInNote.textContent = refusedURLNote;
      p.signInNote.hidden = false;
    } else {
      p.signInNote.hidden = true;
      p.signInNote.textContent = "";
      p.signInLink.removeAttribute("href");
    }
  }

  // personal is what GET /v1/servers says of each server for this person: perUser
  // (each person signs in for themselves) and signedIn (this one has). The event
  // stream is everyone's, so it is asked with the person's token at each snapshot,
  // after a server's change, and when the page comes back into view (a sign-in
  // completes in a tab of its own).
  const personal = new Map();
  let personalTimer = 0;

  async function loadPersonal() {
    const my = epoch;
    let list;
    try {
      ({ servers: list } = await api("/v1/servers"));
    } catch (_) {
      return; // the cards keep what the events say
    }
    if (my !== epoch) return;
    personal.clear();
    for (const s of list || []) {
      if ("perUser" in s || "signedIn" in s) personal.set(s.name, { perUser: s.perUser, signedIn: s.signedIn });
    }
    for (const [, v] of servers) if (v.last) showSignIn(v.last, v.parts);
  }

  function schedulePersonalReload() {
    clearTimeout(personalTimer);
    personalTimer = setTimeout(loadPersonal, 300);
  }

  // Back from the sign-in's tab: a person's own sign-in changes no server's state,
  // so no event says it.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && streamAbort) schedulePersonalReload();
  });
  window.addEventListener("focus", () => {
    if (streamAbort) schedulePersonalReload();
  });

  const refusedURLNote = "Sign-in failed: the authorization server's address is not an http or https URL; not opening it.";

  // isWebURL reports whether s is an http or https URL.
  function isWebURL(s) {
    try {
      const u = new URL(s);
      return u.protocol === "https:" || u.protocol === "http:";
    } catch (_) {
      return false;
    }
  }

  // signIn starts the server's sign-in and takes the person to the authorization
  // server's page in a tab of its own, opened at the click (a tab opened once the
  // answer is in would be a popup that browsers block) and sent there once the API
  // has answered. The authorization server sends that tab back to serve's
  // /oauth/callback; this page follows the server's state on /v1/events.
  async function signIn(name, p) {
    p.signIn.disabled = true;
    p.refusedURL = false;
    const tab = window.open("", "_blank");
    if (tab) tab.opener = null; // the page it goes to cannot reach this one
    try {
      const { url } = await api(`/v1/servers/${encodeURIComponent(name)}/login`, { method: "POST" });
      if (!isWebURL(url)) {
        // An authorization server's metadata names the URL: a javascript: one
        // would run in the tab (of this page's origin), a file: one open a local
        // file. The service refuses them too; the page opens only web pages.
        if (tab) tab.close();
        p.refusedURL = true;
        p.signInLink.removeAttribute("href");
        p.signInNote.className = "sign-in-note error";
        p.signInNote.textContent = refusedURLNote;
        p.signInNote.hidden = false;
        return;
      }
      p.signInLink.href = url;
      if (tab) tab.location.href = url;
      p.signInNote.className = "sign-in-note muted";
      p.signInNote.textContent = tab ? "Waiting for the sign-in at the authorization server… " : "Your browser blocked the new tab: ";
      p.signInNote.append(p.signInLink);
      p.signInNote.hidden = false;
    } catch (e) {
      if (tab) tab.close();
      p.signInNote.className = "sign-in-note error";
      p.signInNote.textContent = "Sign-in failed: " + e.describe();
      p.signInNote.hidden = false;
    } finally {
      p.signIn.disabled = false;
    }
  }

  // ---- tools ----

  let tools = [], selected = "", toolTimer = 0;

  async function loadTools() {
    const my = epoch;
    let list, err;
    try {
      list = await api("/v1/tools");
    } catch (e) {
      err = e;
    }
    if (my !== epoch) return;
    if (list) tools = list;
    $("tools-error").textContent = err ? "Could not list the tools: " + err.describe() : "";
    $("tools-error").hidden = !err;
    renderTools();
  }

  function scheduleToolReload() {
    clearTimeout(toolTimer);
    toolTimer = setTimeout(loadTools, 300);
  }

  function matching() {
    const words = $("tool-search").value.toLowerCase().split(/\s+/).filter(Boolean);
    return tools.filter((t) => {
      const hay = `${t.name} ${t.server} ${t.description}`.toLowerCase();
      return words.every((w) => hay.includes(w));
    });
  }

  function renderTools() {
    const list = $("tools");
    const shown = matching();
    list.textContent = "";
    for (const t of shown) {
      const b = el("button", { type: "button", "aria-current": t.name === selected ? "true" : "false", "data-tool": t.name },
        el("span", { class: "name", text: t.name }), " ",
        el("span", { class: "muted", text: t.server }),
        el("span", { class: "desc", text: t.description }));
      b.addEventListener("click", () => selectTool(t.name));
      list.append(el("li", {}, b));
    }
    $("tool-count").textContent = shown.length === tools.length ? `(${tools.length})` : `(${shown.length} of ${tools.length})`;
    if (!shown.length) list.append(el("li", { class: "muted", text: tools.length ? "No tool matches." : "No tools yet." }));
  }

  $("tool-search").addEventListener("input", renderTools);
  // Enter in the search (the search form's submission) opens the first match. The
  // search is a form of its own so that this Enter never reaches the form it opens.
  $("search-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const first = matching()[0];
    if (first) selectTool(first.name, true);
  });
  document.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (ev.key === "/" && !(t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement)) {
      ev.preventDefault();
      $("tool-search").focus();
    }
  });

  function selectTool(name, focus) {
    selected = name;
    renderTools();
    const t = tools.find((x) => x.name === name);
    if (!t) return;
    const detail = $("tool-detail");
    detail.textContent = "";
    detail.append(toolForm(t));
    if (focus) {
      const first = detail.querySelector("input, select, textarea, button");
      if (first) first.focus();
    }
  }

  // mainType is a schema's type, the first non-null one of a list.
  function mainType(s) {
    const t = s && s.type;
    if (Array.isArray(t)) return t.find((x) => x !== "null") || "string";
    if (t) return t;
    if (s && s.enum) return "string";
    if (s && s.properties) return "object";
    return "";
  }

  // field makes the input of one property; read() returns [present, value] or throws;
  // missing() says whether a required field is left empty; invalid(msg) shows msg
  // beside the field ("" clears it).
  function field(t, name, schema, required) {
    const id = `arg-${t.name}-${name}`;
    const type = mainType(schema);
    const label = el("label", { for: id }, name, required ? el("span", { class: "required", text: " *", "aria-hidden": "true" }) : null,
      schema.description ? el("span", { class: "hint", text: schema.description }) : null);
    const problem = el("p", { class: "field-error error", id: id + "-error", hidden: true });
    let input, read;
    if (Array.isArray(schema.enum)) {
      input = el("select", { id, required });
      if (!required) input.append(el("option", { value: "", text: "—" }));
      for (const v of schema.enum) input.append(el("option", { value: JSON.stringify(v), text: String(v) }));
      if (schema.default !== undefined) input.value = JSON.stringify(schema.default);
      read = () => (input.value === "" ? [false] : [true, JSON.parse(input.value)]);
    } else if (type === "boolean") {
      input = el("input", { id, type: "checkbox" });
      input.checked = schema.default === true;
      read = () => [true, input.checked];
    } else if (type === "integer" || type === "number") {
      input = el("input", { id, type: "number", step: type === "integer" ? "1" : "any", required });
      if (schema.default !== undefined) input.value = schema.default;
      read = () => (input.value === "" ? [false] : [true, Number(input.value)]);
    } else if (type === "string") {
      input = el("input", { id, type: "text", required, placeholder: schema.examples ? String(schema.examples[0]) : (schema.format || "") });
      if (schema.default !== undefined) input.value = schema.default;
      read = () => (input.value === "" && !required ? [false] : [true, input.value]);
    } else {
      input = el("textarea", { id, rows: 3, required, placeholder: "JSON" + (type ? " " + type : "") });
      if (schema.default !== undefined) input.value = JSON.stringify(schema.default, null, 2);
      read = () => {
        if (input.value.trim() === "") return [false];
        try { return [true, JSON.parse(input.value)]; } catch (e) { throw new Error(`${name}: not JSON (${e.message})`); }
      };
    }
    input.setAttribute("aria-describedby", problem.id);
    const invalid = (msg) => {
      problem.textContent = msg;
      problem.hidden = !msg;
      if (msg) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    };
    // A checkbox is always a value; a select of a required enum has no empty choice.
    const missing = () => required && input.type !== "checkbox" && (input.value.trim() === "");
    return { node: el("div", { class: "field" }, label, input, problem), read, missing, invalid, input };
  }

  // rawProblem is what is wrong with arguments given as JSON, before they are sent:
  // not an object, or without a property the schema requires; "" when nothing is.
  function rawProblem(args, required) {
    if (args === null || typeof args !== "object" || Array.isArray(args)) return "Arguments: want a JSON object, such as {}";
    const lacking = required.filter((n) => !(n in args));
    if (!lacking.length) return "";
    return `Required ${lacking.length === 1 ? "argument" : "arguments"} missing: ${lacking.join(", ")}`;
  }

  function toolForm(t) {
    const schema = t.inputSchema || {};
    const props = schema.properties || {};
    const req = new Set(schema.required || []);
    const fields = Object.entries(props).map(([n, s]) => [n, field(t, n, s || {}, req.has(n))]);
    const raw = el("textarea", { id: `raw-${t.name}`, rows: 4, placeholder: "{}", "aria-describedby": `raw-${t.name}-error` });
    const rawError = el("p", { class: "field-error error", id: `raw-${t.name}-error`, hidden: true });
    const result = el("div", { class: "result-box", "aria-live": "polite" });
    const call = el("button", { type: "submit", text: "Call " + t.name });
    const form = el("form", { class: "tool-form", "data-tool": t.name, novalidate: true },
      el("h3", { text: t.name }),
      el("p", { class: "muted", text: `${t.server}${t.originalName && t.originalName !== t.name ? " · " + t.originalName : ""}` }),
      t.description ? el("p", { text: t.description }) : null,
      ...fields.map(([, f]) => f.node),
      el("details", fields.length ? {} : { open: true },
        el("summary", { text: fields.length ? "Arguments as JSON (used instead of the fields when filled)" : "Arguments (JSON)" }),
        el("label", { for: `raw-${t.name}`, text: "Arguments" }), raw, rawError),
      el("div", { class: "row" }, call),
      result);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      // The required fields are checked here, before anything is sent: each one left
      // empty says so beside it, and the first takes the focus.
      for (const [, f] of fields) f.invalid("");
      rawError.hidden = true;
      raw.removeAttribute("aria-invalid");
      result.textContent = "";
      let args = {};
      try {
        if (raw.value.trim()) {
          args = JSON.parse(raw.value);
          const problem = rawProblem(args, [...req]);
          if (problem) {
            rawError.textContent = problem;
            rawError.hidden = false;
            raw.setAttribute("aria-invalid", "true");
            raw.focus();
            return;
          }
        } else {
          const missing = fields.filter(([, f]) => f.missing());
          if (missing.length) {
            for (const [n, f] of missing) f.invalid(`Required: give ${n} a value (the tool needs it).`);
            missing[0][1].input.focus();
            return;
          }
          for (const [n, f] of fields) {
            const [present, v] = f.read();
            if (present) args[n] = v;
          }
        }
      } catch (e) {
        showResult(result, { error: "Arguments: " + e.message });
        return;
      }
      call.disabled = true;
      result.textContent = "Calling…";
      const start = performance.now();
      try {
        const res = await api(`/v1/tools/${encodeURIComponent(t.name)}/call`, { method: "POST", body: { arguments: args } });
        showResult(result, { res, took: performance.now() - start });
      } catch (e) {
        showResult(result, { error: e.describe() });
      } finally {
        call.disabled = false;
      }
    });
    return form;
  }

  // showResult shows a call's result: its content blocks (images as images), marked
  // when it is an error, or the request's own failure.
  function showResult(box, { res, took, error }) {
    box.textContent = "";
    const failed = !!error || res.isError;
    const out = el("div", { class: "result" + (failed ? " is-error" : ""), role: failed ? "alert" : null });
    if (error) {
      out.append(el("strong", { class: "error", text: "Call failed" }), el("pre", { text: error }));
      box.append(out);
      return;
    }
    out.append(el("strong", { class: res.isError ? "error" : "", text: res.isError ? "Error result" : "Result" }),
      el("span", { class: "muted", text: ` (${ms(took)})` }));
    let shown = false;
    for (const c of res.content || []) {
      shown = true;
      if (c.type === "text") out.append(el("pre", { class: "result-text", text: c.text }));
      else if (c.type === "image") out.append(el("img", { src: `data:${c.mimeType};base64,${c.data}`, alt: `image result (${c.mimeType})` }));
      else if (c.type === "audio") out.append(el("audio", { controls: true, src: `data:${c.mimeType};base64,${c.data}` }));
      else if (c.type === "resource") out.append(el("pre", { text: `[resource ${c.resource.uri}]\n${c.resource.text || ""}` }));
      else if (c.type === "resource_link") out.append(el("p", { text: `[resource link ${c.uri}]` }));
      else out.append(el("pre", { text: JSON.stringify(c, null, 2) }));
    }
    if (res.structuredContent) {
      out.append(el("details", { open: !shown }, el("summary", { text: "Structured content" }),
        el("pre", { text: JSON.stringify(res.structuredContent, null, 2) })));
    } else if (!shown) {
      out.append(el("p", { class: "muted", text: "(empty result)" }));
    }
    box.append(out);
  }

  // ---- recent calls ----

  function addCall(c) {
    const body = $("calls").querySelector("tbody");
    const row = el("tr", { class: c.isError ? "is-error" : "" },
      el("td", { text: clock(c.start) }),
      el("td", {}, el("code", { text: c.tool })),
      el("td", { text: c.server || "—" }),
      el("td", { text: c.source === "session" ? "session " + (c.session || "").slice(0, 8) : c.source, title: c.session || null }),
      el("td", { class: "num", text: ms(c.durationMs) }),
      el("td", { class: "wrap" + (c.isError ? " error" : ""), text: c.isError ? "error: " + (c.error || "") : "ok" }));
    body.prepend(row);
    while (body.children.length > 100) body.lastChild.remove();
    $("calls").hidden = false;
    $("calls-empty").hidden = true;
  }

  // ---- sessions ----

  // sessionList is one page of GET /v1/sessions: the person's own sessions (everyone's
  // for an admin, each with its "owner"), newest first, those that match the search
  // box's words. pageCursors are the cursors of the pages from the first (""), the
  // last the page shown; pageStarts how many sessions come before each.
  const SESSION_PAGE = 25;
  let sessionList = [], sessionTotal = 0, sessionNext = "", sessionQuery = "";
  let pageCursors = [""], pageStarts = [0];
  let sessionsAsked = 0; // numbers the lists asked for: an answer to an older one is dropped
  let sessionsEpoch = 0; // the person whose search and page are kept
  let searchTimer = 0;

  // when is a time as the clock, with the date when it is not today's.
  function when(t) {
    const d = new Date(t);
    return d.toDateString() === new Date().toDateString() ? clock(d) : `${d.toLocaleDateString()} ${clock(d)}`;
  }

  // dated is a time with its date, to the minute.
  function dated(t) {
    const d = new Date(t);
    return `${d.toLocaleDateString()} ${d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false })}`;
  }

  async function loadSessions() {
    const my = epoch, asked = ++sessionsAsked;
    const params = new URLSearchParams({ limit: String(SESSION_PAGE) });
    if (sessionQuery) params.set("q", sessionQuery);
    if (pageCursors[pageCursors.length - 1]) params.set("cursor", pageCursors[pageCursors.length - 1]);
    let res, err;
    try {
      res = await api("/v1/sessions?" + params);
    } catch (e) {
      err = e;
    }
    if (my !== epoch || asked !== sessionsAsked) return;
    $("sessions-section").setAttribute("aria-busy", "false");
    if (err) {
      sessionsNote(err.status === 503 ? "This server keeps no sessions." : "Could not list the sessions: " + err.describe());
      return;
    }
    if (!(res.sessions || []).length && pageCursors.length > 1) {
      // Its sessions were deleted or became active (newer): the page before.
      pageCursors.pop();
      pageStarts.pop();
      loadSessions();
      return;
    }
    sessionList = res.sessions || [];
    sessionTotal = res.total || 0;
    sessionNext = res.next || "";
    renderSessions();
  }

  function sessionsNote(text) {
    $("sessions-note").textContent = text || "";
    $("sessions-note").hidden = !text;
  }

  // forgetSessionsView drops the last person's search and page.
  function forgetSessionsView() {
    sessionsEpoch = epoch;
    clearTimeout(searchTimer);
    sessionQuery = "";
    $("session-search").value = "";
    pageCursors = [""];
    pageStarts = [0];
    sessionTotal = 0;
    sessionNext = "";
  }

  function renderSessions() {
    if (sessionsEpoch !== epoch) forgetSessionsView();
    const list = $("sessions");
    list.textContent = "";
    for (const s of sessionList) {
      const title = s.title || s.id;
      // Sessions often share a title (the same first question): the id and the day
      // each started tell them apart.
      const facts = [s.created ? "started " + dated(s.created) : "", count(s.messages || 0, "message"), "active " + when(s.lastActive)];
      const b = el("button", { type: "button", class: "open", "data-session": s.id, "aria-current": s.id === sessionID ? "true" : "false", title: s.id },
        el("span", { class: "title", text: title }),
        s.title ? el("code", { class: "sid", text: s.id }) : null,
        s.owner ? el("span", { class: "owner", text: "owner: " + s.owner }) : null,
        el("span", { class: "facts", text: facts.filter(Boolean).join(" · ") }));
      b.addEventListener("click", () => openSession(s.id));
      const li = el("li", {}, b);
      li.append(el("button", { type: "button", class: "delete", "data-delete": s.id, "aria-label": "Delete session " + title, text: "Delete",
        onclick: () => askDelete(li, s.id) }));
      list.append(li);
    }
    $("sessions-empty").hidden = sessionList.length > 0;
    $("sessions-empty").textContent = sessionQuery ? `No session matches “${sessionQuery}”.` : "No sessions yet: a chat below starts one.";
    $("session-count").textContent = sessionTotal ? `(${sessionTotal})` : "";
    const start = pageStarts[pageStarts.length - 1];
    $("sessions-pager").hidden = pageCursors.length === 1 && !sessionNext;
    $("sessions-newer").disabled = pageCursors.length === 1;
    $("sessions-older").disabled = !sessionNext;
    $("sessions-range").textContent = sessionList.length ? `${start + 1}–${start + sessionList.length} of ${sessionTotal}` : "";
  }

  // askDelete asks, in the session's row, whether to delete it.
  function askDelete(li, id) {
    const del = li.querySelector("button.delete");
    const ask = el("span", { class: "confirm", role: "group", "aria-label": "Delete this session?" }, el("span", { text: "Delete?" }));
    const no = el("button", { type: "button", "data-confirm": "no", text: "No", onclick: () => { ask.replaceWith(del); del.focus(); } });
    ask.append(el("button", { type: "button", "data-confirm": "yes", text: "Yes", onclick: () => deleteSession(id, ask) }), no);
    del.replaceWith(ask);
    no.focus();
  }

  // deleteSession deletes a session (ask is its row's question, disabled meanwhile); a
  // turn running in it (409) is said, and the session kept.
  async function deleteSession(id, ask) {
    const my = epoch;
    for (const b of ask.querySelectorAll("button")) b.disabled = true;
    sessionsNote("");
    try {
      await api(`/v1/sessions/${encodeURIComponent(id)}`, { method: "DELETE" });
    } catch (e) {
      if (my !== epoch) return;
      if (e.status === 404) noSuchSession(id);
      else {
        sessionsNote(e.status === 409 ? "A turn is running in this session: delete it once the turn has ended."
          : "Could not delete the session: " + (e.describe ? e.describe() : e.message));
        renderSessions();
      }
      return;
    }
    if (my !== epoch) return;
    if (sessionID === id && !chatBusy) {
      sessionID = "";
      $("chat-log").textContent = "";
      $("chat-session").textContent = "";
    }
    sessionList = sessionList.filter((s) => s.id !== id);
    renderSessions();
    loadSessions(); // the page filled up again, the total
  }

  // noSuchSession drops a session the API no longer shows this person (deleted,
  // expired, or someone else's) from the list and the chat, and says so.
  function noSuchSession(id) {
    sessionList = sessionList.filter((s) => s.id !== id);
    if (sessionID === id) {
      sessionID = "";
      $("chat-session").textContent = "";
    }
    renderSessions();
    sessionsNote(`No such session: ${id} (deleted, expired, or not yours).`);
  }

  // Search: the list of the sessions that match, from its first page, once typing pauses.
  function searchSessions() {
    clearTimeout(searchTimer);
    const q = $("session-search").value.trim();
    if (q === sessionQuery) return;
    sessionQuery = q;
    pageCursors = [""];
    pageStarts = [0];
    loadSessions();
  }
  $("session-search").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(searchSessions, 250);
  });
  $("sessions-search-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    searchSessions();
  });
  $("sessions-older").addEventListener("click", () => {
    if (!sessionNext) return;
    pageCursors.push(sessionNext);
    pageStarts.push(pageStarts[pageStarts.length - 1] + sessionList.length);
    loadSessions();
  });
  $("sessions-newer").addEventListener("click", () => {
    if (pageCursors.length === 1) return;
    pageCursors.pop();
    pageStarts.pop();
    loadSessions();
  });

  // openSession shows a session's history in the chat panel; what is sent next
  // continues it.
  async function openSession(id) {
    if (chatBusy) {
      sessionsNote("A turn is running in the chat: open another session once it ends.");
      return;
    }
    const my = epoch;
    sessionsNote("");
    let s;
    try {
      s = await api(`/v1/sessions/${encodeURIComponent(id)}`);
    } catch (e) {
      if (my !== epoch) return;
      if (e.status === 404) noSuchSession(id);
      else sessionsNote("Could not open the session: " + e.describe());
      return;
    }
    if (my !== epoch || chatBusy) return;
    sessionID = s.id;
    $("chat-log").textContent = "";
    $("chat-session").textContent = `session ${s.id}${s.busy ? " (a turn runs in it elsewhere)" : ""}`;
    followChat();
    showHistory(s.messages || []);
    // Calls of its turn that wait for a person can be decided here too.
    for (const a of s.approvals || []) approvalButtons(chatMsg("assistant", "").m, a);
    renderSessions();
    if ($("chat-input").offsetParent) $("chat-input").focus();
  }

  // resultText is a tool result as the model got it (tool.Text): its blocks, one a
  // line, and its structured content when no block has text.
  function resultText(r) {
    if (!r) return "";
    const parts = [];
    let hasText = false;
    for (const c of r.content || []) {
      if (c.type === "text") { parts.push(c.text); hasText = true; }
      else if (c.type === "image") parts.push(`[Image: ${c.mimeType}]`);
      else if (c.type === "audio") parts.push(`[Audio: ${c.mimeType}]`);
      else if (c.type === "resource") {
        parts.push(`[Resource: ${c.resource.uri}]` + (c.resource.text ? "\n" + c.resource.text : ""));
        hasText = hasText || !!c.resource.text;
      } else if (c.type === "resource_link") parts.push(`[Resource link: ${c.uri}]`);
      else parts.push(JSON.stringify(c));
    }
    if (!hasText && r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent));
    return parts.join("\n");
  }

  // showHistory shows a session's stored messages as the chat showed them live: the
  // person's messages, and for each turn one reply with its calls and their results.
  function showHistory(messages) {
    let reply = null, text = "";
    for (const m of messages) {
      if (m.role === "user") {
        chatMsg("user", m.text);
        reply = null;
        continue;
      }
      if (!reply) {
        reply = chatMsg("assistant", "");
        text = "";
      }
      if (m.role === "assistant") {
        if (m.text) {
          text += m.text;
          reply.body.textContent = text;
        }
        for (const c of m.calls || []) chatStep(reply.m, `→ ${c.name} ${c.arguments}`);
      } else if (m.role === "tool") {
        const failed = !!(m.result && m.result.isError);
        chatStep(reply.m, `← ${m.name}${failed ? " failed" : ""}: ${resultText(m.result)}`, failed);
      }
    }
  }

  // ---- chat ----

  // chatAbort ends the turn's stream under way when the person signs out.
  let sessionID = "", chatBusy = false, chatAbort = null;

  function renderChat(model) {
    $("chat-on").hidden = !model.configured;
    $("chat-off").hidden = model.configured;
    $("chat-help").textContent = model.help || "";
  }

  // The log follows the conversation: whatever a turn adds (its answer as it streams
  // in, its calls, a question) scrolls it to the newest line, unless the person has
  // scrolled up to read; sending a message or opening a session follows again.
  const chatLog = $("chat-log");
  let chatFollow = true;
  chatLog.addEventListener("scroll", () => {
    chatFollow = chatLog.scrollHeight - chatLog.scrollTop - chatLog.clientHeight < 8;
  });
  new MutationObserver(() => {
    if (!chatFollow) return;
    chatLog.scrollTop = chatLog.scrollHeight;
    // A question's first field or an approval's button, focused, stays in view.
    const f = document.activeElement;
    if (f && chatLog.contains(f) && f.getBoundingClientRect().top < chatLog.getBoundingClientRect().top) f.scrollIntoView({ block: "nearest" });
  }).observe(chatLog, { childList: true, subtree: true, characterData: true });

  function followChat() {
    chatFollow = true;
    chatLog.scrollTop = chatLog.scrollHeight;
  }

  function chatMsg(role, text) {
    const m = el("div", { class: "msg " + role }, el("strong", { text: role === "user" ? "You" : "Model" }), el("br"));
    const body = el("span", { class: "body", text: text || "" });
    m.append(body);
    chatLog.append(m);
    return { m, body };
  }

  function chatStep(m, text, isError) {
    m.insertBefore(el("div", { class: "step" + (isError ? " error" : ""), text }), m.lastChild);
  }

  $("chat-new").addEventListener("click", () => {
    if (chatBusy) return;
    sessionID = "";
    $("chat-log").textContent = "";
    $("chat-session").textContent = "";
    renderSessions();
    $("chat-input").focus();
  });

  $("chat-input").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) {
      ev.preventDefault();
      $("chat-form").requestSubmit();
    }
  });

  $("chat-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const text = $("chat-input").value.trim();
    if (!text || chatBusy) return;
    chatBusy = true;
    $("chat-send").disabled = true;
    followChat();
    chatMsg("user", text);
    $("chat-input").value = "";
    const reply = chatMsg("assistant", "");
    reply.m.setAttribute("aria-busy", "true");
    let streamed = "";
    const my = epoch;
    const ctl = new AbortController();
    chatAbort = ctl;
    try {
      if (!sessionID) {
        // Its first words are its title in the sessions' list.
        const s = await api("/v1/sessions", { method: "POST", body: { metadata: { title: text.slice(0, 80) } }, signal: ctl.signal });
        if (my !== epoch) return;
        sessionID = s.id;
        $("chat-session").textContent = "session " + sessionID;
        loadSessions();
      }
      const res = await api(`/v1/sessions/${encodeURIComponent(sessionID)}/messages`, { method: "POST", body: { content: text }, stream: true, signal: ctl.signal });
      let finished = false;
      await readEvents(res, (name, d) => {
        switch (name) {
          case "text":
            streamed += d.text;
            reply.body.textContent = streamed;
            break;
          case "tool_call":
            chatStep(reply.m, `→ ${d.name} ${JSON.stringify(d.arguments)}`);
            break;
          case "tool_result":
            chatStep(reply.m, `← ${d.name}${d.isError ? " failed" : ""} (${ms(d.durationMs)}): ${d.result}`, d.isError);
            break;
          case "approval_required":
            approvalButtons(reply.m, d);
            break;
          case "input_required":
            inputForm(reply.m, d);
            break;
          case "input_closed":
            if (questions.has(d.requestId)) questions.get(d.requestId)(d.action);
            break;
          case "done":
            finished = true;
            if (!streamed) reply.body.textContent = d.answer;
            break;
          case "error":
            finished = true;
            chatStep(reply.m, "The turn failed: " + d.error.message, true);
            break;
        }
      });
      if (!finished) chatStep(reply.m, "The stream ended before the turn finished.", true);
    } catch (e) {
      if (e.status === 404 && e.code === "not_found" && sessionID) {
        chatStep(reply.m, "No such session: it was deleted, or is not yours. Send again to start a new one.", true);
        noSuchSession(sessionID);
      } else {
        chatStep(reply.m, "The turn failed: " + (e.describe ? e.describe() : e.message), true);
      }
    } finally {
      reply.m.removeAttribute("aria-busy");
      chatBusy = false;
      chatAbort = null;
      $("chat-send").disabled = false;
      if (my === epoch) {
        $("chat-input").focus();
        loadSessions(); // its count of messages, its time
      }
    }
  });

  function approvalButtons(m, d) {
    const row = el("div", { class: "row" }, el("span", { text: `${d.name} needs your approval: ${JSON.stringify(d.arguments)}` }));
    const decide = async (allow) => {
      for (const b of row.querySelectorAll("button")) b.disabled = true;
      // Shown at once: the turn may go on (its stream) before the POST's answer is read.
      const status = el("span", { text: allow ? "allowing…" : "denying…" });
      row.append(status);
      try {
        await api(`/v1/sessions/${encodeURIComponent(sessionID)}/approvals/${encodeURIComponent(d.callId)}`, { method: "POST", body: { allow } });
        status.textContent = allow ? "allowed" : "denied";
      } catch (e) {
        status.className = "error";
        status.textContent = e.describe();
      }
    };
    row.append(el("button", { type: "button", text: "Allow", "data-decision": "allow", onclick: () => decide(true) }),
      el("button", { type: "button", text: "Deny", "data-decision": "deny", onclick: () => decide(false) }));
    m.insertBefore(row, m.lastChild);
    row.querySelector("button").focus(); // a decision is what the turn waits for
  }

  // ---- a server's questions (elicitation/create) ----

  // questions maps a question's requestId to what closes its form (input_closed).
  const questions = new Map();

  // choicesOf is the choices of an enum schema: enum (with the legacy enumNames), or
  // oneOf/anyOf of {const, title}; null when it is not one.
  function choicesOf(s) {
    if (!s) return null;
    if (Array.isArray(s.enum)) return s.enum.map((v, i) => ({ value: v, title: (Array.isArray(s.enumNames) && s.enumNames[i]) || String(v) }));
    const list = s.oneOf || s.anyOf;
    if (Array.isArray(list)) return list.map((o) => ({ value: o.const, title: o.title || String(o.const) }));
    return null;
  }

  // questionField makes the input of one field of a server's form, its default filled
  // in (SEP-1034): a select for a choice, checkboxes for a multiple choice, a checkbox
  // for a boolean, a number or a text input. Every text is the server's, shown as text.
  function questionField(prefix, name, schema, required) {
    const id = `${prefix}-${name}`;
    const type = mainType(schema);
    const title = el("span", { text: schema.title || name });
    const hint = schema.description ? el("span", { class: "hint", text: schema.description }) : null;
    const star = required ? el("span", { class: "required", text: " *", "aria-hidden": "true" }) : null;
    const problem = el("p", { class: "field-error error", id: id + "-error", hidden: true });
    const multi = type === "array" ? choicesOf(schema.items) : null;
    const choices = multi ? null : choicesOf(schema);
    let label, input, read, missing = () => false;
    if (multi) {
      const chosen = Array.isArray(schema.default) ? schema.default : [];
      const boxes = multi.map((c, i) => {
        const cb = el("input", { type: "checkbox", id: `${id}-${i}`, "data-value": JSON.stringify(c.value) });
        cb.checked = chosen.includes(c.value);
        return cb;
      });
      label = el("p", { class: "label", id: id + "-label" }, title, star, hint);
      input = el("div", { id, class: "choices", role: "group", "aria-labelledby": id + "-label" },
        ...boxes.map((cb, i) => el("label", { class: "choice", for: cb.id }, cb, " ", multi[i].title)));
      read = () => [true, boxes.filter((cb) => cb.checked).map((cb) => JSON.parse(cb.dataset.value))];
    } else {
      label = el("label", { for: id }, title, star, hint);
      if (choices) {
        input = el("select", { id });
        if (!required || schema.default === undefined) input.append(el("option", { value: "", text: "—" }));
        for (const c of choices) input.append(el("option", { value: JSON.stringify(c.value), text: c.title }));
        if (schema.default !== undefined) input.value = JSON.stringify(schema.default);
        read = () => (input.value === "" ? [false] : [true, JSON.parse(input.value)]);
        missing = () => required && input.value === "";
      } else if (type === "boolean") {
        input = el("input", { id, type: "checkbox" });
        input.checked = schema.default === true;
        read = () => [true, input.checked];
      } else if (type === "integer" || type === "number") {
        input = el("input", { id, type: "number", step: type === "integer" ? "1" : "any" });
        if (schema.default !== undefined) input.value = schema.default;
        read = () => (input.value === "" ? [false] : [true, Number(input.value)]);
        missing = () => required && input.value === "";
      } else {
        input = el("input", { id, type: "text", placeholder: schema.format || "" });
        if (schema.default !== undefined) input.value = String(schema.default);
        read = () => (input.value === "" && !required ? [false] : [true, input.value]);
        missing = () => required && input.value === "";
      }
    }
    input.setAttribute("aria-describedby", problem.id);
    const invalid = (msg) => {
      problem.textContent = msg;
      problem.hidden = !msg;
      if (msg) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    };
    return { node: el("div", { class: "field" }, label, input, problem), read, missing, invalid, input };
  }

  // linkOf is the URL a URL-mode question asks to open, when it is a web address:
  // anything else (javascript:, data:) is never made a link.
  function linkOf(raw) {
    try {
      const u = new URL(raw);
      return u.protocol === "https:" || u.protocol === "http:" ? u : null;
    } catch (_) {
      return null;
    }
  }

  // inputForm shows a server's question in the turn's message m: a form (Submit,
  // Decline, Cancel) or a link to open (opening it accepts; Decline, Cancel), and
  // sends the answer to POST …/inputs/{request_id}. A form the server's checks refuse
  // shows each field's problem beside it and stays open.
  function inputForm(m, d) {
    const prefix = "in-" + d.requestId;
    const box = el("div", { class: "question", "data-request": d.requestId, role: "group", "aria-label": "Question from " + d.server });
    box.append(el("p", {}, el("strong", { text: d.server }), " asks: ", el("span", { class: "question-message", text: d.message })));
    const status = el("p", { class: "question-status muted", role: "status" });
    const error = el("p", { class: "error", role: "alert", hidden: true });
    const buttons = [];
    let fields = [], answered = "";
    const button = (text, action, primary) => {
      const b = el("button", { type: primary ? "submit" : "button", text, "data-action": action });
      if (!primary) b.addEventListener("click", () => send(action));
      buttons.push(b);
      return b;
    };
    const enable = (on) => {
      for (const b of buttons) b.disabled = !on;
      for (const [, f] of fields) for (const x of [f.input, ...f.input.querySelectorAll("input")]) x.disabled = !on;
    };
    const send = async (action, content) => {
      enable(false);
      error.hidden = true;
      for (const [, f] of fields) f.invalid("");
      status.textContent = "sending…";
      try {
        await api(`/v1/sessions/${encodeURIComponent(sessionID)}/inputs/${encodeURIComponent(d.requestId)}`,
          { method: "POST", body: content === undefined ? { action } : { action, content } });
        answered = action;
        status.textContent = { accept: "sent", decline: "declined", cancel: "cancelled" }[action];
      } catch (e) {
        status.textContent = "";
        // "content.NAME": problem; … — each beside its field.
        const rest = [];
        for (const part of (e.message || "").split("; ")) {
          const hit = /^"content\.([^"]+)": (.*)$/.exec(part);
          const f = hit && fields.find(([n]) => n === hit[1]);
          if (f) f[1].invalid(hit[2]);
          else rest.push(part);
        }
        error.textContent = rest.length ? (e.describe ? e.describe() : e.message) : "These values do not fit the form: see beside each field.";
        error.hidden = false;
        if (e.status !== 404) enable(true);
      }
    };
    if (d.mode === "url") {
      const u = linkOf(d.url);
      if (u) {
        const link = el("a", { class: "question-link", href: u.href, target: "_blank", rel: "noopener noreferrer", text: u.href });
        link.addEventListener("click", () => send("accept")); // opening it is the person's consent
        box.append(el("p", {}, "It asks you to open this page, on ", el("strong", { class: "question-host", text: u.host }), ":"), el("p", {}, link));
        if (u.hostname.split(".").some((l) => l.startsWith("xn--"))) {
          box.append(el("p", { class: "error", text: "The address has international characters (punycode): check it is the site you expect." }));
        }
      } else {
        box.append(el("p", { class: "error", text: "It asks you to open an address that is not a web page, which is not shown as a link: " + d.url }));
      }
      box.append(el("div", { class: "row" }, button("Decline", "decline"), button("Cancel", "cancel")));
    } else {
      let schema = d.schema || {};
      if (typeof schema === "string") schema = JSON.parse(schema);
      const req = new Set(schema.required || []);
      // The required fields first: the order of the server's properties does not
      // survive the trip (a JSON object's keys have none).
      const props = Object.entries(schema.properties || {});
      props.sort(([a], [b]) => Number(req.has(b)) - Number(req.has(a)));
      fields = props.map(([n, s]) => [n, questionField(prefix, n, s || {}, req.has(n))]);
      const form = el("form", { class: "question-form", novalidate: true },
        ...fields.map(([, f]) => f.node),
        el("div", { class: "row" }, button("Submit", "accept", true), button("Decline", "decline"), button("Cancel", "cancel")));
      form.addEventListener("submit", (ev) => {
        ev.preventDefault();
        for (const [, f] of fields) f.invalid("");
        const lacking = fields.filter(([, f]) => f.missing());
        if (lacking.length) {
          for (const [, f] of lacking) f.invalid("Required: the server asks for it.");
          lacking[0][1].input.focus();
          return;
        }
        const content = {};
        for (const [n, f] of fields) {
          const [present, v] = f.read();
          if (present) content[n] = v;
        }
        send("accept", content);
      });
      box.append(form);
    }
    if (d.timeoutMs) box.append(el("p", { class: "muted", text: `Waiting up to ${Math.round(d.timeoutMs / 1000)} s for your answer.` }));
    box.append(status, error);
    m.insertBefore(box, m.lastChild);
    questions.set(d.requestId, (action) => {
      questions.delete(d.requestId);
      enable(false);
      if (!answered) status.textContent = `closed without your answer (${action})`;
    });
    const first = box.querySelector("input, select, a, button");
    if (first) first.focus(); // an answer is what the call waits for
  }

  // ---- the views in their own scripts (index.html loads them after this one) ----

  // hooks are what those scripts ask to be told: card(name, actions, card) when a
  // server's card is made (actions is its row of buttons), forget() when the person
  // changes (drop what was shown), snapshot(data) and server(data) with the events of
  // /v1/events, me(who) when GET /v1/me has answered (null: it did not).
  const hooks = { card: [], forget: [], snapshot: [], server: [], me: [] };
  window.switchboard = {
    el, api, APIError, readEvents, clock, when, count,
    me: () => me, // GET /v1/me's answer, or null
    epoch: () => epoch, // changes with the person: compare before showing an answer
    openSession: (id) => openSession(id),
    loadSessions: () => loadSessions(),
    on: (what, f) => hooks[what].push(f),
  };

  // Every script has run by DOMContentLoaded (they are deferred), so every hook is in
  // place before the first event.
  // The provider's answer, when this load brings one, is taken first.
  document.addEventListener("DOMContentLoaded", async () => {
    await signin.ready;
    token = sessionStorage.getItem(TOKEN_KEY) || "";
    connect();
  });
})();
