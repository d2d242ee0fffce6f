// @modelcontextprotocol/sdk (the official TypeScript SDK's client): serve's gateway
// over Streamable HTTP (/mcp) and legacy SSE (/sse), and `switchboard mcp` over stdio;
// on each, the catalog, a call, a call's progress and a call cancelled (until the
// server that runs it stops).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startSwitchboard, getText, waitFor, catalog, tokyoTime } from './harness.mjs';

let sb;
let stdioStderr = '';
before(async () => { sb = await startSwitchboard(); });
after(() => sb?.stop());

const transports = {
  'Streamable HTTP': () => {
    const url = `${sb.url}/mcp`;
    const token = sb.token;
    // docs:mcp-sdk-http
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } }, // SWITCHBOARD_TOKEN
    });
    // docs:end
    return transport;
  },
  SSE: () => {
    const url = `${sb.url}/sse`;
    const token = sb.token;
    // docs:mcp-sdk-sse
    const transport = new SSEClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    // docs:end
    return transport;
  },
  stdio: () => {
    const config = sb.config;
    // docs:mcp-sdk-stdio
    const transport = new StdioClientTransport({ command: 'switchboard', args: ['--config', config, 'mcp'] });
    // docs:end
    // The binary under test, in the sandbox's environment; its log (the servers' stderr
    // among it) read by the cancellation test.
    const stdio = new StdioClientTransport({ command: sb.bin, args: ['--config', config, 'mcp'], env: sb.env, stderr: 'pipe' });
    stdioStderr = '';
    stdio.stderr.on('data', (b) => { stdioStderr += b; });
    return stdio;
  },
};

for (const name of Object.keys(transports)) {
  test(`MCP over ${name}`, async (t) => {
    const transport = transports[name]();
    // docs:mcp-sdk-client
    const client = new Client({ name: 'my-app', version: '1.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: 'convert_time', arguments: { time: '2026-01-15T12:00:00Z', to: 'Asia/Tokyo' } });
    console.log(result.content[0].text);
    // docs:end
    t.after(() => client.close());
    // What reaches the client, message by message, for the progress test.
    const wire = [];
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => { wire.push(message); deliver(message, extra); };
    assert.equal(client.getServerVersion().name, 'switchboard');
    assert.deepEqual(tools.map((tool) => tool.name).sort(), catalog);
    assert.equal(result.isError ?? false, false);
    assert.equal(result.content[0].text, tokyoTime);
    assert.deepEqual(result.structuredContent, { time: '2026-01-15T21:00:00+09:00', unix: 1768478400, weekday: 'Thursday', zone: 'Asia/Tokyo' });

    await t.test('progress', async () => {
      wire.length = 0;
      // docs:mcp-sdk-progress
      const steps = [];
      const done = await client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } },
        undefined,
        { onprogress: ({ progress, total }) => steps.push(`${progress}/${total}`) },
      );
      // docs:end
      assert.equal(done.content[0].text, 'Long running operation completed. Duration: 0.6 seconds, Steps: 3.');
      // Switchboard sent each step's notification, in order, before the answer.
      assert.deepEqual(wire.filter((m) => m.method === 'notifications/progress' || 'result' in m)
        .map((m) => m.method ? `${m.params.progress}/${m.params.total}` : 'result'), ['1/3', '2/3', '3/3', 'result']);
      // The SDK passes them on, but for the last now and then: 1.32 handles a
      // notification a microtask late, and drops one whose call the answer read with it
      // has just ended (about 1 call in 5 over SSE here; typescript-sdk issue #2580).
      assert.ok(steps.length >= 2, steps.join(' '));
      assert.deepEqual(steps, ['1/3', '2/3', '3/3'].slice(0, steps.length));
    });

    await t.test('cancellation', async () => {
      // What the server said on stderr: serve's log of it, or what `switchboard mcp` passed on.
      const said = name === 'stdio'
        ? async () => stdioStderr
        : async () => JSON.parse(await getText(sb, '/v1/servers/testserver/log')).entries.map((e) => e.text).join('\n');
      const times = async (line) => (await said()).split(line).length - 1;
      const started = await times('testserver: sleep started');
      const cancelled = await times('testserver: sleep cancelled');
      // docs:mcp-sdk-cancel
      const controller = new AbortController();
      const call = client.callTool({ name: 'sleep', arguments: { ms: 60000 } }, undefined, { signal: controller.signal });
      // docs:end
      await waitFor('the server to start sleeping', async () => await times('testserver: sleep started') > started);
      // docs:mcp-sdk-cancel-abort
      controller.abort(); // the SDK sends notifications/cancelled, and the call rejects
      // docs:end
      // The SDK rejects it with its AbortError (as McpError -32001 in 1.32).
      await assert.rejects(call, /AbortError: This operation was aborted/);
      // Switchboard passed the cancellation on: the server stopped sleeping.
      await waitFor('the server to say its sleep was cancelled', async () => await times('testserver: sleep cancelled') > cancelled);
      // The session goes on after a cancelled call.
      const echo = await client.callTool({ name: 'echo', arguments: { message: 'still here' } });
      assert.equal(echo.content[0].text, 'Echo: still here');
    });
  });
}
