// The Switchboard that each test file runs its client library against: a real
// `switchboard serve` on a free loopback port, with `switchboard fake-llm` (the
// binary's deterministic fake model: "call TOOL {json}" makes it call TOOL, and after
// the tools' results it answers with their texts) as its model, and a config with the
// built-in demo servers (clock, notes), the npm reference server-everything (for
// progress) and internal/testserver (its sleep tool says on stderr when a call of it is
// cancelled). The binaries are $SWITCHBOARD_BIN and $SWITCHBOARD_TESTSERVER
// (internal/proof's TestJSClients builds them), else `go build`s of this checkout.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

// The fixed question and answer of the demo clock that every test asks for: the same
// whatever the day.
export const convertCall = 'call convert_time {"time": "2026-01-15T12:00:00Z", "to": "Asia/Tokyo"}';
export const convertArgs = { time: '2026-01-15T12:00:00Z', to: 'Asia/Tokyo' };
export const tokyoTime = '2026-01-15T21:00:00+09:00 (Asia/Tokyo, Thursday)';

// The tools of the config below: the demo servers' and the two of server-everything it allows.
export const catalog = [
  'add_duration', 'convert_time', 'current_time',
  'delete_note', 'get_note', 'list_notes', 'put_note', 'search_notes',
  'echo', 'trigger-long-running-operation',
  'sleep',
].sort();

const built = {};

// binary is the program $VARIABLE names, else pkg built once per process.
function binary(variable, pkg, name) {
  if (process.env[variable]) return process.env[variable];
  if (!built[pkg]) {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-clients-bin-'));
    built[pkg] = join(dir, name);
    execFileSync('go', ['build', '-o', built[pkg], pkg], { cwd: root, stdio: 'inherit' });
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return built[pkg];
}

// switchboardBin is the binary under test.
export function switchboardBin() {
  return binary('SWITCHBOARD_BIN', './cmd/switchboard', 'switchboard');
}

// child starts a process and collects its output; ready(text)
// says when the output shows it has started, and what to return then.
function child(name, argv, env, ready) {
  // In the test's process group: whoever stops the test stops it too.
  const proc = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60s:\n${out}`)), 60_000);
    const onData = (b) => {
      out += b;
      const v = ready(out);
      if (v !== undefined) {
        clearTimeout(timer);
        resolve(v);
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it started:\n${out}`));
    });
  });
  return {
    started,
    output: () => out,
    // stop sends SIGTERM (serve stops its servers) and waits; after 10 s it kills it.
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// startSwitchboard starts fake-llm and serve, and returns where serve listens (url,
// without a trailing slash), its bearer token, the config file (for `switchboard mcp
// --config`), the binary, the environment to run it in, and stop(). With oidc, serve
// also takes the tokens of `switchboard fake-idp` (its issuer is the result's issuer),
// where MCP clients sign in (its people: alice, and bob of the admins). provider is
// the model's wire format, fake-llm's and serve's: openai, or anthropic.
export async function startSwitchboard({ oidc = false, provider = 'openai' } = {}) {
  const bin = switchboardBin();
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-clients-'));
  const home = join(dir, 'home');
  for (const d of ['.config', '.cache', '.local/share', '.local/state']) mkdirSync(join(home, d), { recursive: true });
  // Built from scratch, as testenv.Sandbox does: no user config, notebook or CI leaks in.
  const env = {
    PATH: process.env.PATH, TMPDIR: process.env.TMPDIR ?? tmpdir(), HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local/share'), XDG_STATE_HOME: join(home, '.local/state'),
    SWITCHBOARD_NOTES_FILE: join(dir, 'notes.json'),
  };
  if (process.env.GOCOVERDIR) env.GOCOVERDIR = process.env.GOCOVERDIR;
  const everything = join(root, 'testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  if (!existsSync(everything)) throw new Error(`${everything} is missing: run \`make deps\``);
  const config = join(dir, 'mcp.json');
  writeFileSync(config, JSON.stringify({
    mcpServers: {
      clock: { command: bin, args: ['demo-server', 'clock'] },
      notes: { command: bin, args: ['demo-server', 'notes'] },
      everything: { command: process.execPath, args: [everything], tools: { allow: ['echo', 'trigger-long-running-operation'] } },
      testserver: { command: binary('SWITCHBOARD_TESTSERVER', './internal/testserver/cmd/testserver', 'testserver'), tools: { allow: ['sleep'] } },
    },
  }, null, 2));

  const fake = child('switchboard fake-llm', [bin, 'fake-llm', '--listen', '127.0.0.1:0', '--provider', provider], env,
    (out) => out.match(/model at (http:\/\/\S+)/)?.[1]);
  const helpers = [fake];
  let serve, issuer, url;
  const token = randomBytes(16).toString('hex');
  try {
    const modelURL = await fake.started;
    const argv = [bin, '--config', config, 'serve', '--addr', '127.0.0.1:0', '--base-url', modelURL, '--model', 'fake', '--provider', provider, '--store', 'memory', '--deferred', 'never'];
    if (oidc) {
      const idp = child('switchboard fake-idp', [bin, 'fake-idp', '--listen', '127.0.0.1:0', '--audience', 'switchboard'], env,
        (out) => out.match(/fake OpenID provider at (http:\/\/\S+),/)?.[1]);
      helpers.push(idp);
      issuer = await idp.started;
      argv.push('--oidc-issuer', issuer, '--oidc-audience', 'switchboard');
    }
    const serveEnv = { ...env, SWITCHBOARD_TOKEN: token, OPENAI_API_KEY: 'fake-llm takes any key' };
    serve = child('switchboard serve', argv, serveEnv,
      (out) => out.includes('msg="servers started"') ? out.match(/msg=serving url=(\S+)/)?.[1] : undefined);
    helpers.unshift(serve);
    url = await serve.started;
  } catch (err) {
    for (const h of helpers) await h.stop();
    throw err;
  }
  return {
    url, token, issuer, config, bin, env, dir,
    output: () => serve.output(),
    async stop() {
      for (const h of helpers) await h.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// getText is GET url+path with serve's token.
export async function getText(sb, path) {
  const res = await fetch(sb.url + path, { headers: { Authorization: `Bearer ${sb.token}` } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.text();
}

// waitFor polls cond (async) every 20 ms until it returns a truthy value, which it
// returns; after 10 s it fails naming what.
export async function waitFor(what, cond) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
