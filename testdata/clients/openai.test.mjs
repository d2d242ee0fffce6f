// openai (the official OpenAI SDK): Chat Completions, streamed and not, the client's
// own function tools, and the Responses API continued with previous_response_id.
// The regions between "docs:" markers are docs/clients.md's snippets, word for word
// (internal/proof's TestClientsDocSnippets checks it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { startSwitchboard, convertCall, tokyoTime } from './harness.mjs';

let sb;
before(async () => {
  sb = await startSwitchboard();
  // What a user sets: the SDK reads both.
  process.env.OPENAI_BASE_URL = `${sb.url}/v1`;
  process.env.OPENAI_API_KEY = sb.token;
});
after(() => sb?.stop());

test('chat completion runs a catalog tool', async () => {
  const message = convertCall;
  // docs:openai-chat
  const client = new OpenAI(); // OPENAI_BASE_URL=http://127.0.0.1:7300/v1
  const completion = await client.chat.completions.create({
    model: 'any',
    messages: [{ role: 'user', content: message }],
  });
  console.log(completion.choices[0].message.content);
  // docs:end
  assert.equal(completion.choices[0].message.content, `convert_time: ${tokyoTime}`);
  assert.equal(completion.choices[0].finish_reason, 'stop');
});

test('chat completion streamed', async () => {
  const client = new OpenAI();
  const message = convertCall;
  let text = '';
  // docs:openai-chat-stream
  const stream = await client.chat.completions.create({
    model: 'any',
    messages: [{ role: 'user', content: message }],
    stream: true,
  });
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
  }
  // docs:end
  assert.match(text, new RegExp(`convert_time: ${escape(tokyoTime)}$`));
});

test('chat completion with the client\'s own function tool', async () => {
  const client = new OpenAI();
  // docs:openai-client-tools
  const tools = [{
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  }];
  const messages = [{ role: 'user', content: 'call get_weather {"city": "Paris"}' }];
  const first = await client.chat.completions.create({ model: 'any', messages, tools });
  const call = first.choices[0].message.tool_calls[0]; // the client runs its own tools
  messages.push(first.choices[0].message,
    { role: 'tool', tool_call_id: call.id, content: `sunny in ${JSON.parse(call.function.arguments).city}` });
  const second = await client.chat.completions.create({ model: 'any', messages, tools });
  console.log(second.choices[0].message.content);
  // docs:end
  assert.equal(first.choices[0].finish_reason, 'tool_calls');
  assert.equal(call.function.name, 'get_weather');
  assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris' });
  assert.equal(second.choices[0].message.content, 'get_weather: sunny in Paris');
});

test('responses continued with previous_response_id', async () => {
  const client = new OpenAI();
  // docs:openai-responses
  const first = await client.responses.create({
    model: 'any',
    input: 'call get_weather {"city": "Paris"}',
    tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
  });
  const call = first.output.find((item) => item.type === 'function_call');
  const second = await client.responses.create({
    model: 'any',
    previous_response_id: first.id, // Switchboard keeps the conversation
    input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
  });
  console.log(second.output_text);
  // docs:end
  assert.equal(call.name, 'get_weather');
  // The fake model names the tool from the call in the history: only the first
  // response's stored conversation holds it.
  assert.equal(second.output_text, 'get_weather: sunny');
  assert.equal(second.previous_response_id, first.id);

  const got = await client.responses.retrieve(second.id);
  assert.equal(got.output_text, 'get_weather: sunny');

  const tool = await client.responses.create({ model: 'any', input: convertCall });
  assert.equal(tool.output_text, `convert_time: ${tokyoTime}`);
});

test('responses streamed', async () => {
  const client = new OpenAI();
  const events = [];
  const stream = await client.responses.create({ model: 'any', input: convertCall, stream: true });
  let text = '';
  let completed;
  for await (const event of stream) {
    events.push(event.type);
    if (event.type === 'response.output_text.delta') text += event.delta;
    if (event.type === 'response.completed') completed = event.response;
  }
  assert.match(text, new RegExp(`convert_time: ${escape(tokyoTime)}$`));
  const message = completed.output.find((item) => item.type === 'message');
  assert.match(message.content[0].text, new RegExp(`convert_time: ${escape(tokyoTime)}$`));
  assert.ok(events.includes('response.created') && events.at(-1) === 'response.completed', events.join(' '));
});

test('responses.inputItems.list() and responses.delete()', async () => {
  const client = new OpenAI();
  const response = await client.responses.create({
    model: 'any',
    input: [{ role: 'developer', content: 'Be brief.' }, { role: 'user', content: 'hi' }],
  });
  // docs:openai-responses-items
  const items = [];
  for await (const item of client.responses.inputItems.list(response.id, { order: 'asc', limit: 1 })) {
    items.push(item); // the request's input, a page at a time
  }
  await client.responses.delete(response.id); // Switchboard keeps it no more
  // docs:end
  assert.deepEqual(items.map((item) => [item.type, item.role, item.content[0].text]),
    [['message', 'developer', 'Be brief.'], ['message', 'user', 'hi']]);
  await assert.rejects(client.responses.retrieve(response.id), (err) => err.status === 404);
  await assert.rejects(client.responses.inputItems.list(response.id), (err) => err.status === 404);
});

// Structured outputs: the SDK's parse helpers send the schema, and parse the answer.
// The fake model answers a user's JSON object as the JSON the format asks for.
const cityTime = { city: 'Tokyo', time: '12:04' };

test('structured outputs: chat.completions.parse() with zodResponseFormat', async () => {
  const client = new OpenAI();
  const message = JSON.stringify(cityTime);
  // docs:openai-parse
  const CityTime = z.object({ city: z.string(), time: z.string() });
  const completion = await client.chat.completions.parse({
    model: 'any',
    messages: [{ role: 'user', content: message }],
    response_format: zodResponseFormat(CityTime, 'city_time'),
  });
  console.log(completion.choices[0].message.parsed); // { city: 'Tokyo', time: '12:04' }
  // docs:end
  assert.deepEqual(completion.choices[0].message.parsed, cityTime);
  // Not a JSON object: the fake's echo, which the helper refuses to parse.
  await assert.rejects(client.chat.completions.parse({
    model: 'any', messages: [{ role: 'user', content: 'no json here' }],
    response_format: zodResponseFormat(CityTime, 'city_time'),
  }));
});

test('structured outputs: responses.parse() with zodTextFormat', async () => {
  const client = new OpenAI();
  const message = JSON.stringify(cityTime);
  // docs:openai-responses-parse
  const CityTime = z.object({ city: z.string(), time: z.string() });
  const response = await client.responses.parse({
    model: 'any',
    input: message,
    text: { format: zodTextFormat(CityTime, 'city_time') },
  });
  console.log(response.output_parsed);
  // docs:end
  assert.deepEqual(response.output_parsed, cityTime);
  assert.equal(response.text.format.type, 'json_schema');
  assert.equal(response.text.format.name, 'city_time');
});

function escape(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
