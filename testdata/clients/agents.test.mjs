// @openai/agents (the OpenAI Agents SDK): Switchboard as the model (the Responses
// API), and Switchboard's tools through MCP, over Streamable HTTP (serve's /mcp) and
// stdio (`switchboard mcp`); the agent's own function tools; a streamed run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { z } from 'zod';
import {
  Agent, run, tool, MCPServerStreamableHttp, MCPServerStdio, setDefaultOpenAIClient, setTracingDisabled,
} from '@openai/agents';
import { startSwitchboard, convertCall, tokyoTime } from './harness.mjs';

let sb;
before(async () => {
  sb = await startSwitchboard();
  const baseURL = `${sb.url}/v1`;
  const token = sb.token;
  // docs:agents-model
  setDefaultOpenAIClient(new OpenAI({ baseURL, apiKey: token })); // baseURL: http://127.0.0.1:7300/v1
  setTracingDisabled(true); // traces go to OpenAI's platform otherwise
  // docs:end
});
after(() => sb?.stop());

// The agent ran convert_time itself, through its MCP server: the tool's call and its
// output are run items (Switchboard hands a tool the client declared back to it).
function ranConvertTime(result) {
  const calls = result.newItems.filter((item) => item.type === 'tool_call_item');
  const outputs = result.newItems.filter((item) => item.type === 'tool_call_output_item');
  assert.deepEqual(calls.map((item) => item.rawItem.name), ['convert_time']);
  assert.equal(outputs.length, 1);
  assert.match(JSON.stringify(outputs[0].output), new RegExp(escape(tokyoTime)));
}

test('MCP over Streamable HTTP', async (t) => {
  const url = `${sb.url}/mcp`;
  const token = sb.token;
  const message = convertCall;
  // docs:agents-mcp-http
  const switchboard = new MCPServerStreamableHttp({
    name: 'switchboard',
    url, // http://127.0.0.1:7300/mcp
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await switchboard.connect();
  const agent = new Agent({ name: 'assistant', instructions: 'Answer briefly.', model: 'any', mcpServers: [switchboard] });
  const result = await run(agent, message);
  console.log(result.finalOutput);
  // docs:end
  t.after(() => switchboard.close());
  ranConvertTime(result);
  assert.match(result.finalOutput, new RegExp(`^convert_time: .*${escape(tokyoTime)}`));
});

test('MCP over stdio', async (t) => {
  const config = sb.config;
  const message = convertCall;
  // docs:agents-mcp-stdio
  const switchboard = new MCPServerStdio({ name: 'switchboard', fullCommand: `switchboard --config ${config} mcp` });
  // docs:end
  // The binary under test, in the sandbox's environment. Its servers start before
  // it answers: more than the library's 5 s on a busy machine.
  const server = new MCPServerStdio({ name: 'switchboard', command: sb.bin, args: ['--log-level', 'warn', '--config', config, 'mcp'], env: sb.env, clientSessionTimeoutSeconds: 60 });
  void switchboard;
  await server.connect();
  t.after(() => server.close());
  const tools = await server.listTools();
  assert.ok(tools.some((x) => x.name === 'convert_time'), tools.map((x) => x.name).join(' '));
  const agent = new Agent({ name: 'assistant', instructions: 'Answer briefly.', model: 'any', mcpServers: [server] });
  const result = await run(agent, message);
  ranConvertTime(result);
  assert.match(result.finalOutput, new RegExp(`^convert_time: .*${escape(tokyoTime)}`));
});

test('the agent\'s own function tool, streamed', async () => {
  // docs:agents-tools
  const getWeather = tool({
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => `sunny in ${city}`,
  });
  const agent = new Agent({ name: 'assistant', model: 'any', tools: [getWeather] });
  const result = await run(agent, 'call get_weather {"city": "Paris"}', { stream: true });
  for await (const text of result.toTextStream()) process.stdout.write(text);
  await result.completed;
  // docs:end
  assert.equal(result.finalOutput, 'get_weather: sunny in Paris');
  const calls = result.newItems.filter((item) => item.type === 'tool_call_item');
  assert.deepEqual(calls.map((item) => item.rawItem.name), ['get_weather']);
});

test('a catalog tool, run inside Switchboard', async () => {
  const agent = new Agent({ name: 'assistant', model: 'any' });
  const result = await run(agent, convertCall);
  assert.equal(result.finalOutput, `convert_time: ${tokyoTime}`);
  // Switchboard ran it: the agent saw no tool call.
  assert.equal(result.newItems.filter((item) => item.type === 'tool_call_item').length, 0);
});

function escape(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
