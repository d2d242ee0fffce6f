// Signing in: a team's serve takes the tokens of its OpenID provider (here
// `switchboard fake-idp`), and an MCP client finds where to sign in from serve's
// /.well-known/oauth-protected-resource. The OAuth clients of @modelcontextprotocol/sdk
// and of @ai-sdk/mcp (each its own: discovery, dynamic client registration,
// authorization code with PKCE) sign in over Streamable HTTP; the person's browser is
// a fetch that follows the provider's redirect (fake-idp signs in its login_hint at once).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { createMCPClient, auth } from '@ai-sdk/mcp';
import { startSwitchboard, convertArgs, tokyoTime } from './harness.mjs';

let sb;
before(async () => { sb = await startSwitchboard({ oidc: true }); });
after(() => sb?.stop());

// docs:mcp-sdk-oauth-provider
// Keeps what the SDK hands it; a real app keeps it across runs and opens the browser.
class SignIn {
  constructor(redirectUrl, openBrowser) {
    this.redirectUrl = redirectUrl;
    this.openBrowser = openBrowser;
    this.clientMetadata = {
      client_name: 'my-app', redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() { return this.client; }
  saveClientInformation(client) { this.client = client; }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; }
  saveCodeVerifier(verifier) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
  redirectToAuthorization(url) { return this.openBrowser(url); }
}
// docs:end

// browser stands in for the person: it opens the authorization URL as alice and
// returns the code the provider sends back to the redirect URL.
async function browser(url, redirectUrl) {
  url.searchParams.set('login_hint', 'alice');
  const res = await fetch(url, { redirect: 'manual' });
  assert.equal(res.status, 302, await res.text());
  const back = new URL(res.headers.get('location'));
  assert.equal(back.origin + back.pathname, redirectUrl);
  return back.searchParams.get('code');
}

test('MCP over Streamable HTTP, signed in with OAuth', async (t) => {
  const url = `${sb.url}/mcp`;
  const redirectUrl = 'http://127.0.0.1:8976/callback';
  let code;
  const signIn = new SignIn(redirectUrl, async (authURL) => { code = await browser(authURL, redirectUrl); });
  // docs:mcp-sdk-oauth
  const client = new Client({ name: 'my-app', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: signIn }));
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
    // The browser came back to redirectUrl with ?code=...
    await new StreamableHTTPClientTransport(new URL(url), { authProvider: signIn }).finishAuth(code);
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: signIn }));
  }
  // docs:end
  t.after(() => client.close());
  assert.ok(code, 'the SDK sent the person to the provider');
  assert.ok(signIn.client?.client_id, 'the SDK registered itself with the provider');
  const result = await client.callTool({ name: 'convert_time', arguments: convertArgs });
  assert.equal(result.content[0].text, tokyoTime);

  // The token names alice to serve.
  const me = await fetch(`${sb.url}/v1/me`, { headers: { Authorization: `Bearer ${signIn.tokens().access_token}` } });
  assert.equal(me.status, 200);
  const who = await me.json();
  assert.equal(who.subject, 'alice', JSON.stringify(who));
  assert.equal(who.admin, false, JSON.stringify(who));

  // Without a token, the gateway says where to sign in.
  const anon = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  assert.equal(anon.status, 401);
  assert.match(anon.headers.get('www-authenticate'), /resource_metadata="[^"]*\/\.well-known\/oauth-protected-resource/);
});

test('@ai-sdk/mcp over Streamable HTTP, signed in with OAuth', async (t) => {
  const url = `${sb.url}/mcp`;
  const redirectUrl = 'http://127.0.0.1:8977/callback';
  let code;
  const signIn = new SignIn(redirectUrl, async (authURL) => { code = await browser(authURL, redirectUrl); });
  // docs:ai-sdk-oauth
  const transport = { type: 'http', url, authProvider: signIn };
  if (await auth(signIn, { serverUrl: url }) === 'REDIRECT') {
    // The browser came back to redirectUrl with ?code=...
    await auth(signIn, { serverUrl: url, authorizationCode: code });
  }
  const mcpClient = await createMCPClient({ transport });
  // docs:end
  t.after(() => mcpClient.close());
  assert.ok(code, 'the SDK sent the person to the provider');
  const tools = await mcpClient.tools();
  const out = await tools.convert_time.execute(convertArgs, { toolCallId: 'call-1', messages: [] });
  assert.match(JSON.stringify(out), new RegExp(tokyoTime.replace(/[()+]/g, '\\$&')));
  const me = await fetch(`${sb.url}/v1/me`, { headers: { Authorization: `Bearer ${signIn.tokens().access_token}` } });
  assert.equal((await me.json()).subject, 'alice');
});
