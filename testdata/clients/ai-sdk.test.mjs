// Vercel's AI SDK: `ai` with @ai-sdk/openai (Switchboard as the model, over the
// Responses API and over Chat Completions) and @ai-sdk/mcp (Switchboard's tools over
// Streamable HTTP, SSE and stdio), generateText and streamText, the SDK's own tools.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, streamText, tool, isStepCount } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport as StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { z } from 'zod';
import { startSwitchboard, convertArgs, convertCall, tokyoTime } from './harness.mjs';

let sb, openai;
before(async () => {
  sb = await startSwitchboard();
  openai = provider(`${sb.url}/v1`, sb.token);
});
after(() => sb?.stop());

test('generateText: Switchboard runs its catalog\'s tools', async () => {
  const prompt = convertCall;
  // docs:ai-sdk-generate
  const { text } = await generateText({ model: openai('any'), prompt }); // the Responses API
  // docs:end
  assert.equal(text, `convert_time: ${tokyoTime}`);
  const chat = await generateText({ model: openai.chat('any'), prompt }); // Chat Completions
  assert.equal(chat.text, `convert_time: ${tokyoTime}`);
});

test('streamText with the SDK\'s own tool', async () => {
  // docs:ai-sdk-tools
  const result = streamText({
    model: openai.chat('any'),
    tools: {
      get_weather: tool({
        description: 'The weather in a city',
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => `sunny in ${city}`,
      }),
    },
    stopWhen: isStepCount(5),
    prompt: 'call get_weather {"city": "Paris"}',
  });
  for await (const text of result.textStream) process.stdout.write(text);
  // docs:end
  assert.equal(await result.text, 'get_weather: sunny in Paris');
  const steps = await result.steps;
  assert.deepEqual(steps[0].toolCalls.map((c) => [c.toolName, c.input]), [['get_weather', { city: 'Paris' }]]);
});

const transports = {
  'Streamable HTTP': () => {
    const url = `${sb.url}/mcp`;
    const token = sb.token;
    // docs:ai-sdk-mcp-http
    const transport = { type: 'http', url, headers: { Authorization: `Bearer ${token}` } }; // url: http://127.0.0.1:7300/mcp
    // docs:end
    return transport;
  },
  SSE: () => ({ type: 'sse', url: `${sb.url}/sse`, headers: { Authorization: `Bearer ${sb.token}` } }),
  stdio: () => {
    const config = sb.config;
    // docs:ai-sdk-mcp-stdio
    const transport = new StdioMCPTransport({ command: 'switchboard', args: ['--config', config, 'mcp'] });
    // docs:end
    void transport;
    // The binary under test, in the sandbox's environment.
    return new StdioMCPTransport({ command: sb.bin, args: ['--log-level', 'warn', '--config', config, 'mcp'], env: sb.env });
  },
};

for (const name of Object.keys(transports)) {
  test(`MCP over ${name}: the SDK runs Switchboard's tools`, async (t) => {
    const transport = transports[name]();
    // docs:ai-sdk-mcp
    const mcpClient = await createMCPClient({ transport });
    const tools = await mcpClient.tools();
    const { text, steps } = await generateText({
      model: openai('any'),
      tools,
      stopWhen: isStepCount(5),
      prompt: 'call convert_time {"time": "2026-01-15T12:00:00Z", "to": "Asia/Tokyo"}',
    });
    console.log(text);
    await mcpClient.close();
    // docs:end
    t.after(() => mcpClient.close());
    assert.ok(tools.convert_time && tools.put_note, Object.keys(tools).join(' '));
    // The SDK called the MCP tool (Switchboard handed back the call to a tool the
    // client declared), and the model answered with its output.
    assert.deepEqual(steps[0].toolCalls.map((c) => [c.toolName, c.input]), [['convert_time', convertArgs]]);
    assert.match(JSON.stringify(steps[0].toolResults[0].output), new RegExp(escape(tokyoTime)));
    assert.match(text, new RegExp(`^convert_time: .*${escape(tokyoTime)}`));
  });
}

function provider(baseURL, token) {
  // docs:ai-sdk-model
  const openai = createOpenAI({ baseURL, apiKey: token }); // baseURL: http://127.0.0.1:7300/v1
  // docs:end
  return openai;
}

function escape(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
