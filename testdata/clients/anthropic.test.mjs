// @anthropic-ai/sdk: Messages, streamed and not, the client's own tools, message threads (the tool
// runner's and the thread helper's) and token counting.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startSwitchboard, convertCall, tokyoTime, getText } from './harness.mjs';

let sb;
before(async () => {
  sb = await startSwitchboard();
  // What a user sets: the SDK reads both, and sends the key as x-api-key.
  process.env.ANTHROPIC_BASE_URL = sb.url;
  process.env.ANTHROPIC_API_KEY = sb.token;
});
after(() => sb?.stop());

test('message runs a catalog tool', async () => {
  const content = convertCall;
  // docs:anthropic-messages
  const client = new Anthropic(); // ANTHROPIC_BASE_URL=http://127.0.0.1:7300
  const message = await client.messages.create({
    model: 'any',
    max_tokens: 1024,
    messages: [{ role: 'user', content }],
  });
  console.log(message.content[0].text);
  // docs:end
  assert.equal(message.role, 'assistant');
  assert.equal(message.stop_reason, 'end_turn');
  assert.equal(message.content.at(-1).text, `convert_time: ${tokyoTime}`);
});

test('message streamed', async () => {
  const client = new Anthropic();
  const content = convertCall;
  let text = '';
  // docs:anthropic-stream
  const stream = client.messages.stream({
    model: 'any',
    max_tokens: 1024,
    messages: [{ role: 'user', content }],
  });
  stream.on('text', (delta) => { text += delta; });
  const message = await stream.finalMessage();
  // docs:end
  assert.ok(text.endsWith(`convert_time: ${tokyoTime}`), text);
  assert.equal(message.stop_reason, 'end_turn');
  assert.equal(message.content.at(-1).text.endsWith(`convert_time: ${tokyoTime}`), true, JSON.stringify(message.content));
});

test('the client\'s own tool', async () => {
  const client = new Anthropic();
  // docs:anthropic-tools
  const tools = [{
    name: 'get_weather',
    description: 'The weather in a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  }];
  const messages = [{ role: 'user', content: 'call get_weather {"city": "Paris"}' }];
  const first = await client.messages.create({ model: 'any', max_tokens: 1024, messages, tools });
  const use = first.content.find((block) => block.type === 'tool_use'); // the client runs its own tools
  messages.push({ role: 'assistant', content: first.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: `sunny in ${use.input.city}` }] });
  const second = await client.messages.create({ model: 'any', max_tokens: 1024, messages, tools });
  console.log(second.content[0].text);
  // docs:end
  assert.equal(first.stop_reason, 'tool_use');
  assert.equal(use.name, 'get_weather');
  assert.deepEqual(use.input, { city: 'Paris' });
  assert.equal(second.content[0].text, 'get_weather: sunny in Paris');
});

test('the client\'s own tool, streamed', async () => {
  const client = new Anthropic();
  const tools = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
  const stream = client.messages.stream({
    model: 'any', max_tokens: 1024, tools,
    messages: [{ role: 'user', content: 'call get_weather {"city": "Oslo"}' }],
  });
  const message = await stream.finalMessage();
  const use = message.content.find((block) => block.type === 'tool_use');
  assert.equal(message.stop_reason, 'tool_use');
  assert.equal(use.name, 'get_weather');
  assert.deepEqual(use.input, { city: 'Oslo' });
});

// capturing is a client that keeps what it sends: the URL, the anthropic-beta header
// and the body of each request, and the status of its response.
function capturing() {
  const sent = [];
  const client = new Anthropic({
    fetch: async (url, init) => {
      const req = { url: String(url), beta: new Headers(init.headers).get('anthropic-beta'), body: JSON.parse(init.body ?? 'null') };
      sent.push(req);
      const res = await fetch(url, init);
      req.status = res.status;
      return res;
    },
  });
  return { client, sent };
}

test('message threads: beta.messages.toolRunner() over several requests', async () => {
  const { client, sent } = capturing();
  // One step that calls a catalog tool and the client's: the thread keeps the first's result.
  const content = `${convertCall}\ncall get_weather {"city": "Paris"}`;
  // docs:anthropic-tool-runner
  const message = await client.beta.messages.toolRunner({
    model: 'any',
    max_tokens: 1024,
    messages: [{ role: 'user', content }],
    tools: [{
      name: 'get_weather',
      input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      run: async ({ city }) => `sunny in ${city}`, // the runner runs the client's own tools
    }],
  }); // a message thread: each request after the first sends only the new messages
  console.log(message.content.at(-1).text);
  // docs:end
  assert.equal(message.content.at(-1).text, `convert_time: ${tokyoTime}\nget_weather: sunny in Paris`);
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[0].body.thread, { type: 'create' });
  assert.deepEqual(sent[1].body.thread.type, 'continue');
  assert.equal(sent[1].body.messages.length, 1, JSON.stringify(sent[1].body));
  assert.equal(sent[1].body.messages[0].content[0].type, 'tool_result');
  assert.equal(sent[1].body.tools, undefined);
  assert.ok(sent.every((r) => r.status === 200 && r.beta.includes('message-threads-')), JSON.stringify(sent));
});

test('message threads: beta.messages.thread().send() keeps the first turn', async () => {
  const { client, sent } = capturing();
  // docs:anthropic-thread
  const thread = client.beta.messages.thread({ model: 'any', max_tokens: 1024, system: 'Be brief.' });
  const first = await thread.send({ role: 'user', content: 'My name is Ada.' });
  const second = await thread.send({ role: 'user', content: 'What is my name?' }); // sends this message only
  console.log(second.content[0].text);
  // docs:end
  assert.match(first.content[0].text, /^You said: My name is Ada\./);
  assert.match(second.content[0].text, /^You said: What is my name\?/);
  assert.deepEqual(sent[1].body.thread, { type: 'continue', previous_message_id: first.id });
  assert.equal(sent[1].body.messages.length, 1);
  assert.equal(sent[1].body.system, undefined);
  // Switchboard kept the whole conversation, the first turn too, as a session of the second reply's id.
  const kept = JSON.parse(await getText(sb, `/v1/sessions/${second.id}`));
  assert.deepEqual(kept.messages.map((m) => m.text), ['My name is Ada.', first.content[0].text, 'What is my name?', second.content[0].text]);
  assert.equal(kept.system, 'Be brief.');

  // A thread that is gone (here removed) is a 404 thread_not_found: the helper sends
  // the whole conversation again in a new thread, and goes on from there, streamed too.
  const res = await fetch(`${sb.url}/v1/sessions/${second.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${sb.token}` } });
  assert.equal(res.status, 204, await res.text());
  const third = await thread.send({ role: 'user', content: 'Again?' });
  assert.match(third.content[0].text, /^You said: Again\?/);
  assert.deepEqual(sent.slice(2).map((r) => [r.body.thread.type, r.body.messages.length, r.status]),
    [['continue', 1, 404], ['create', 5, 200]]);
  const fourth = await thread.stream({ role: 'user', content: 'Streamed?' }).finalMessage();
  assert.match(fourth.content[0].text, /^You said: Streamed\?/);
  assert.deepEqual(sent.at(-1).body.thread, { type: 'continue', previous_message_id: third.id });
});

test('messages.countTokens()', async () => {
  // Counted by an Anthropic backend.
  const anthropicBacked = await startSwitchboard({ provider: 'anthropic' });
  try {
    const client = new Anthropic({ baseURL: anthropicBacked.url, apiKey: anthropicBacked.token });
    const content = 'What time is it in Tokyo?';
    // docs:anthropic-count-tokens
    const count = await client.messages.countTokens({ model: 'any', messages: [{ role: 'user', content }] });
    console.log(count.input_tokens); // with an Anthropic model ("provider": "anthropic")
    // docs:end
    assert.ok(count.input_tokens > 0, JSON.stringify(count));
  } finally {
    await anthropicBacked.stop();
  }
  // With another backend it is refused, in Anthropic's error shape.
  await assert.rejects(new Anthropic().messages.countTokens({ model: 'any', messages: [{ role: 'user', content: 'hi' }] }),
    (err) => err.status === 400 && err.error.error.type === 'invalid_request_error' && /only an Anthropic backend/.test(err.error.error.message));
});
