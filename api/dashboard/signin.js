// Switchboard dashboard: signing the person in at the service's identity provider,
// when GET /v1/dashboard/signin names one (issuer, client id, audience), as its
// public client: OAuth 2.0's authorization code flow with PKCE (RFC 7636, S256),
// the answer taken back at this page's own address. The tokens stay in this tab's
// sessionStorage, as a pasted one does; none in localStorage or a cookie.
// Loaded before app.js, which asks it through window.switchboardSignIn.
"use strict";
(() => {
  const TOKEN_KEY = "switchboard.token"; // app.js's: the bearer token the API gets
  // The provider's answer besides it ({refresh, idToken, expires}): there only while
  // the token is one this page signed in for.
  const SIGNIN_KEY = "switchboard.signin";
  // A sign-in under way in this tab ({state, verifier, redirect}), until the provider
  // sends the person back.
  const PENDING_KEY = "switchboard.signin.pending";

  let config = null; // GET /v1/dashboard/signin's answer, null without a provider
  let meta = null; // the provider's discovery document, read when first needed
  let error = ""; // why the last sign-in or renewal failed, for the token form
  let timer = 0; // the renewal ahead of the token's expiry
  const listeners = []; // told each renewed token

  const b64url = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const random = (n) => b64url(crypto.getRandomValues(new Uint8Array(n)));
  const saved = () => JSON.parse(sessionStorage.getItem(SIGNIN_KEY) || "null");
  // The page's own address: the redirect URI registered at the provider.
  const home = () => location.origin + "/";

  // claims is a JWT's payload, unchecked (the service checks the token); null for a
  // token that is no JWT (an opaque access token).
  function claims(t) {
    try {
      const part = (t || "").split(".");
      if (part.length !== 3) return null;
      const bin = atob(part[1].replace(/-/g, "+").replace(/_/g, "/"));
      return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
    } catch (_) {
      return null;
    }
  }
  const hasAudience = (c, aud) => !!c && (Array.isArray(c.aud) ? c.aud.includes(aud) : c.aud === aud);

  // discover reads the provider's discovery document (OpenID Connect Discovery 1.0),
  // whose issuer must be the service's exactly.
  async function discover() {
    if (meta) return meta;
    const url = new URL(".well-known/openid-configuration", config.issuer.replace(/\/?$/, "/")).href;
    let res;
    try {
      res = await fetch(url, { credentials: "omit" });
    } catch (e) {
      throw new Error(`cannot read the provider's discovery document ${url} (${e.message}); the provider must let this page's origin read it (CORS)`);
    }
    if (!res.ok) throw new Error(`the provider's discovery document ${url} answered ${res.status}`);
    const m = await res.json();
    if (m.issuer !== config.issuer) throw new Error(`the provider's discovery document names the issuer ${m.issuer}, not ${config.issuer}`);
    if (!m.authorization_endpoint || !m.token_endpoint) throw new Error("the provider's discovery document names no authorization_endpoint or token_endpoint");
    meta = m;
    return m;
  }

  // tokenRequest posts a grant to the token endpoint as the public client (a form,
  // so that the browser sends it with no preflight). A refusal is marked refused.
  async function tokenRequest(form) {
    form.set("client_id", config.clientId);
    let res;
    try {
      res = await fetch(meta.token_endpoint, { method: "POST", body: form, headers: { Accept: "application/json" }, credentials: "omit" });
    } catch (e) {
      throw new Error(`cannot reach the provider's token endpoint (${e.message}); the provider must allow this page's origin (CORS)`);
    }
    let body = {};
    try {
      body = await res.json();
    } catch (_) { /* not JSON: the status says it */ }
    if (!res.ok) {
      const err = new Error("the provider refused: " + (body.error_description || body.error || res.status));
      err.refused = true;
      throw err;
    }
    return body;
  }

  // store keeps the provider's answer: the token the service takes (the access
  // token, or the ID token when only it carries the service's audience, as Google's
  // and, with one app for both, Entra ID's) as the page's token, and beside it the
  // refresh token (a provider that does not rotate it keeps the last), the ID token
  // (for signing out) and when the token expires.
  function store(res) {
    const aud = config.audience;
    let token = res.access_token;
    if (aud && !hasAudience(claims(token), aud) && hasAudience(claims(res.id_token), aud)) token = res.id_token;
    token = token || res.id_token;
    if (!token) throw new Error("the provider's answer holds no token");
    const c = claims(token), last = saved() || {};
    let expires = 0;
    if (c && typeof c.exp === "number") expires = c.exp * 1000;
    else if (token === res.access_token && res.expires_in) expires = Date.now() + res.expires_in * 1000;
    const s = { refresh: res.refresh_token || last.refresh || "", idToken: res.id_token || last.idToken || "", expires };
    sessionStorage.setItem(TOKEN_KEY, token);
    sessionStorage.setItem(SIGNIN_KEY, JSON.stringify(s));
    schedule(s);
    return token;
  }

  // schedule renews the token a little ahead of its expiry (a fifth of what is left,
  // at most a minute) when there is a refresh token; without one the person signs in
  // again when the service refuses the token.
  function schedule(s) {
    clearTimeout(timer);
    if (!s || !s.refresh || !s.expires) return;
    const left = s.expires - Date.now();
    timer = setTimeout(renew, Math.max(0, left - Math.min(60000, left / 5)));
  }

  // begin sends the person to the provider's sign-in; it throws why it cannot.
  async function begin() {
    await discover();
    if (!crypto.subtle) throw new Error("this page is not a secure context (https, or http on loopback): the browser offers no SHA-256 for PKCE");
    const state = random(16), verifier = random(32), redirect = home();
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
    sessionStorage.setItem(PENDING_KEY, JSON.stringify({ state, verifier, redirect }));
    const scopes = ["openid", "profile", "email"];
    // A refresh token where the provider says how to ask for one (Okta, Entra ID,
    // Dex), and the groups where they are a scope of their own (Dex).
    for (const extra of ["offline_access", "groups"]) {
      if ((meta.scopes_supported || []).includes(extra)) scopes.push(extra);
    }
    const u = new URL(meta.authorization_endpoint);
    for (const [k, v] of Object.entries({
      response_type: "code", client_id: config.clientId, redirect_uri: redirect, scope: scopes.join(" "), state,
      code_challenge: b64url(new Uint8Array(digest)), code_challenge_method: "S256",
    })) u.searchParams.set(k, v);
    location.assign(u.href);
  }

  // complete takes the provider's answer at this page's address: it is this tab's
  // sign-in only with the state it sent (anything else may be forged, and is refused
  // before the code is used), from the issuer it asked (RFC 9207: "iss", required
  // when the provider says it sends it); the code is then redeemed with the PKCE
  // verifier. The answer leaves the address bar and the tab's history either way.
  async function complete(params) {
    const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) || "null");
    sessionStorage.removeItem(PENDING_KEY);
    history.replaceState(null, "", location.pathname);
    if (!pending) throw new Error("the provider's answer came to a tab that started no sign-in: sign in again");
    if (params.get("state") !== pending.state) throw new Error("the provider's answer does not carry the state this tab sent (refused: it may be forged): sign in again");
    await discover();
    const iss = params.get("iss");
    if (iss !== null ? iss !== config.issuer : meta.authorization_response_iss_parameter_supported === true) {
      throw new Error(`the answer is not from the issuer ${config.issuer} (refused): sign in again`);
    }
    if (params.get("error")) throw new Error("the provider did not sign you in: " + (params.get("error_description") || params.get("error")));
    const res = await tokenRequest(new URLSearchParams({
      grant_type: "authorization_code", code: params.get("code") || "", redirect_uri: pending.redirect, code_verifier: pending.verifier,
    }));
    sessionStorage.removeItem(SIGNIN_KEY);
    return store(res);
  }

  // renew is a new token from the refresh token, or "" when there is none or the
  // provider refuses it (the person then signs in again). Requests that met a 401
  // together share one renewal.
  let renewing = null;
  function renew() {
    if (!renewing) renewing = renewOnce().finally(() => { renewing = null; });
    return renewing;
  }
  async function renewOnce() {
    const s = saved();
    if (!config || !s || !s.refresh) return "";
    try {
      await discover();
      const t = store(await tokenRequest(new URLSearchParams({ grant_type: "refresh_token", refresh_token: s.refresh })));
      listeners.forEach((f) => f(t));
      return t;
    } catch (e) {
      if (e.refused && saved()) sessionStorage.setItem(SIGNIN_KEY, JSON.stringify({ ...saved(), refresh: "" }));
      error = "Your sign-in could not be renewed (" + e.message + "): sign in again.";
      return "";
    }
  }

  // forget drops the provider's tokens (a pasted token takes their place).
  function forget() {
    clearTimeout(timer);
    sessionStorage.removeItem(SIGNIN_KEY);
    sessionStorage.removeItem(PENDING_KEY);
  }

  // signOut forgets the provider's tokens and, when the page's token was one of its
  // sign-ins and it has an end_session_endpoint (OpenID Connect RP-Initiated Logout),
  // ends the person's session there, which sends them back to this page.
  async function signOut() {
    const s = saved();
    forget();
    if (!config || !s) return;
    try {
      await discover();
    } catch (_) {
      return; // the tokens are forgotten here; the provider's session stays
    }
    if (!meta.end_session_endpoint) return;
    const u = new URL(meta.end_session_endpoint);
    u.searchParams.set("client_id", config.clientId);
    if (s.idToken) u.searchParams.set("id_token_hint", s.idToken);
    u.searchParams.set("post_logout_redirect_uri", home());
    location.assign(u.href);
  }

  // ready settles once the page knows whether it signs people in, and has taken the
  // provider's answer when this load brings one.
  const ready = (async () => {
    try {
      const res = await fetch("/v1/dashboard/signin");
      if (res.ok) config = await res.json();
    } catch (_) { /* no provider: the page takes a pasted token */ }
    const params = new URLSearchParams(location.search);
    if (config && (params.has("code") || params.has("error"))) {
      try {
        await complete(params);
      } catch (e) {
        error = e.message;
      }
    } else {
      schedule(saved());
    }
  })();

  window.switchboardSignIn = {
    ready,
    available: () => !!config,
    // where the person signs in, for the button: the issuer's host
    provider: () => (config ? new URL(config.issuer).host : ""),
    begin,
    renew,
    canRenew: () => !!(config && saved() && saved().refresh),
    signedIn: () => !!saved(), // the page's token is one of the provider's
    takeError: () => { const e = error; error = ""; return e; },
    forget,
    signOut,
    onToken: (f) => listeners.push(f),
  };
})();
