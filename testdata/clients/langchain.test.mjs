// @langchain/mcp-adapters: Switchboard's tools as LangChain tools (MultiServerMCPClient
// over Streamable HTTP, SSE and stdio), run by a LangChain agent (langchain's
// createAgent) whose model is Switchboard too (@langchain/openai's ChatOpenAI).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent } from 'langchain';
import { startSwitchboard, catalog, convertArgs, convertCall, tokyoTime } from './harness.mjs';

let sb;
before(async () => { sb = await startSwitchboard(); });
after(() => sb?.stop());

test('MCP tools in a LangChain agent', async (t) => {
  const url = `${sb.url}/mcp`;
  const baseURL = `${sb.url}/v1`;
  const token = sb.token;
  const content = convertCall;
  // docs:langchain
  const client = new MultiServerMCPClient({
    mcpServers: {
      switchboard: { url, headers: { Authorization: `Bearer ${token}` } }, // url: http://127.0.0.1:7300/mcp
    },
  });
  const tools = await client.getTools();
  const model = new ChatOpenAI({ model: 'any', apiKey: token, configuration: { baseURL } }); // baseURL: http://127.0.0.1:7300/v1
  const agent = createAgent({ model, tools });
  const result = await agent.invoke({ messages: [{ role: 'user', content }] });
  console.log(result.messages.at(-1).content);
  await client.close();
  // docs:end
  t.after(() => client.close());
  assert.deepEqual(tools.map((x) => x.name).sort(), catalog);
  // The agent called the MCP tool itself, and the model answered with its output.
  const calls = result.messages.flatMap((m) => m.tool_calls ?? []);
  assert.deepEqual(calls.map((c) => [c.name, c.args]), [['convert_time', convertArgs]]);
  const toolMessage = result.messages.find((m) => m.getType?.() === 'tool');
  assert.match(JSON.stringify(toolMessage.content), new RegExp(escape(tokyoTime)));
  assert.match(result.messages.at(-1).content, new RegExp(`^convert_time: .*${escape(tokyoTime)}`));
});

test('a LangChain agent streamed, with Switchboard as its model', async () => {
  const model = new ChatOpenAI({ model: 'any', apiKey: sb.token, configuration: { baseURL: `${sb.url}/v1` } });
  const agent = createAgent({ model, tools: [] });
  let last;
  for await (const state of await agent.stream({ messages: [{ role: 'user', content: convertCall }] }, { streamMode: 'values' })) {
    last = state.messages.at(-1);
  }
  // Switchboard ran the catalog's tool itself: the agent got the answer.
  assert.equal(last.content, `convert_time: ${tokyoTime}`);
  let text = '';
  for await (const chunk of await model.stream(convertCall)) text += chunk.content;
  assert.equal(text, `convert_time: ${tokyoTime}`);
});

const servers = {
  SSE: () => ({ transport: 'sse', url: `${sb.url}/sse`, headers: { Authorization: `Bearer ${sb.token}` } }),
  stdio: () => {
    const config = sb.config;
    // docs:langchain-stdio
    const server = { transport: 'stdio', command: 'switchboard', args: ['--config', config, 'mcp'] };
    // docs:end
    void server;
    // The binary under test, in the sandbox's environment.
    return { transport: 'stdio', command: sb.bin, args: ['--log-level', 'warn', '--config', config, 'mcp'], env: sb.env };
  },
};

for (const [name, server] of Object.entries(servers)) {
  test(`MCP over ${name}: a tool invoked`, async (t) => {
    const client = new MultiServerMCPClient({ mcpServers: { switchboard: server() } });
    t.after(() => client.close());
    const tools = await client.getTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), catalog);
    const convert = tools.find((x) => x.name === 'convert_time');
    const out = await convert.invoke(convertArgs);
    assert.match(JSON.stringify(out), new RegExp(escape(tokyoTime)));
    const echo = await tools.find((x) => x.name === 'echo').invoke({ message: 'hi' });
    assert.match(JSON.stringify(echo), /Echo: hi/);
  });
}

function escape(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
