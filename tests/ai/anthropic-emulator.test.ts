// The Anthropic emulator over plain HTTP: headers, validation, error shapes, fault switches.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAnthropicEmulator } from '../../local/emulators/anthropic/index.ts';

const apiKey = 'sk-ant-test-key';
let emu: Awaited<ReturnType<typeof startAnthropicEmulator>>;

beforeAll(async () => {
  emu = await startAnthropicEmulator({ port: 0, apiKey });
});
afterAll(() => emu.close());
beforeEach(() => emu.resetFaults());

const tool = {
  name: 'record_mood',
  input_schema: {
    type: 'object',
    properties: {
      mood: { type: 'string', enum: ['calm', 'tense'] },
      score: { type: 'number', minimum: 0, maximum: 1 },
      count: { type: 'integer', minimum: 2, maximum: 4 },
      label: { type: 'string', minLength: 1, maxLength: 20 },
      tags: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 4 },
      areaId: { type: 'string', format: 'uuid', enum: ['2b1d6a52-7f0e-4c4b-9d7e-2f4a1c3b5e6d'] },
      nested: {
        type: 'object',
        properties: { note: { type: 'string' } },
        required: ['note'],
      },
    },
    required: ['mood', 'score', 'count', 'label', 'tags', 'areaId', 'nested'],
  },
};

const body = (extra: Record<string, unknown> = {}) => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 512,
  messages: [{ role: 'user', content: 'My shoulders feel tight before the presentation at work tomorrow' }],
  tools: [tool],
  tool_choice: { type: 'tool', name: 'record_mood' },
  ...extra,
});

function post(payload: unknown, headers: Record<string, string> = {}) {
  return fetch(`${emu.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(payload),
  });
}

describe('anthropic emulator', () => {
  it('answers a forced tool call with input matching the schema', async () => {
    const res = await post(body());
    expect(res.status).toBe(200);
    const msg = await res.json();
    expect(msg).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', stop_reason: 'tool_use' });
    const [block] = msg.content;
    expect(block).toMatchObject({ type: 'tool_use', name: 'record_mood' });
    expect(block.id).toMatch(/^toolu_/);
    const input = block.input;
    expect(['calm', 'tense']).toContain(input.mood);
    expect(input.score).toBeGreaterThanOrEqual(0);
    expect(input.score).toBeLessThanOrEqual(1);
    expect([2, 3, 4]).toContain(input.count);
    expect(input.label.length).toBeGreaterThan(0);
    expect(input.label.length).toBeLessThanOrEqual(20);
    expect(input.tags.length).toBeGreaterThanOrEqual(2);
    expect(input.areaId).toBe('2b1d6a52-7f0e-4c4b-9d7e-2f4a1c3b5e6d');
    expect(typeof input.nested.note).toBe('string');
    // Generated text is made of the request's words.
    const inputWords = new Set(['shoulders', 'tight', 'before', 'presentation', 'work', 'tomorrow']);
    for (const w of input.label.toLowerCase().split(' ')) expect(inputWords).toContain(w);
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
    expect(msg.usage.output_tokens).toBeGreaterThan(0);
  });

  it('is deterministic for the same messages and differs for other messages', async () => {
    const a = await (await post(body())).json();
    const b = await (await post(body())).json();
    expect(b.content[0].input).toEqual(a.content[0].input);
    const c = await (
      await post(body({ messages: [{ role: 'user', content: 'Grateful for the long walk by the sea with my sister' }] }))
    ).json();
    expect(c.content[0].input).not.toEqual(a.content[0].input);
  });

  it('sends the rate-limit and request-id headers', async () => {
    const res = await post(body());
    for (const kind of ['requests', 'input-tokens', 'output-tokens']) {
      expect(Number(res.headers.get(`anthropic-ratelimit-${kind}-limit`))).toBeGreaterThan(0);
      expect(res.headers.get(`anthropic-ratelimit-${kind}-remaining`)).toMatch(/^\d+$/);
      expect(Date.parse(res.headers.get(`anthropic-ratelimit-${kind}-reset`)!)).not.toBeNaN();
    }
    expect(res.headers.get('request-id')).toMatch(/^req_/);
  });

  it('answers text without tools', async () => {
    const msg = await (await post(body({ tools: undefined, tool_choice: undefined }))).json();
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.content[0].type).toBe('text');
    expect(msg.content[0].text.length).toBeGreaterThan(0);
  });

  it('rejects a wrong api key and a missing version header in the error shape', async () => {
    const unauth = await post(body(), { 'x-api-key': 'wrong' });
    expect(unauth.status).toBe(401);
    expect(await unauth.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const noVersion = await post(body(), { 'anthropic-version': '' });
    expect(noVersion.status).toBe(400);
    expect((await noVersion.json()).error.type).toBe('invalid_request_error');
  });

  it('validates model, max_tokens, messages and tool_choice', async () => {
    for (const bad of [
      body({ max_tokens: undefined }),
      body({ messages: [] }),
      body({ messages: [{ role: 'system', content: 'x' }] }),
      body({ tool_choice: { type: 'tool', name: 'other_tool' } }),
    ]) {
      const res = await post(bad);
      expect(res.status).toBe(400);
      expect((await res.json()).error.type).toBe('invalid_request_error');
    }
    const unknownModel = await post(body({ model: 'gpt-4o' }));
    expect(unknownModel.status).toBe(404);
    expect((await unknownModel.json()).error.type).toBe('not_found_error');
  });

  it('injects 429 with retry-after, 529 and 500 through POST /_emulator/faults', async () => {
    const set = (f: unknown) =>
      fetch(`${emu.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify(f) }).then((r) => r.json());

    expect(await set({ rateLimitRate: 1, retryAfterSeconds: 7 })).toMatchObject({ rateLimitRate: 1 });
    const limited = await post(body());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect((await limited.json()).error.type).toBe('rate_limit_error');

    await set({ reset: true, overloadedRate: 1 });
    const overloaded = await post(body());
    expect(overloaded.status).toBe(529);
    expect((await overloaded.json()).error.type).toBe('overloaded_error');

    await set({ reset: true, serverErrorRate: 1 });
    expect((await post(body())).status).toBe(500);

    await set({ reset: true });
    expect((await post(body())).status).toBe(200);
  });

  it('fails a seeded share of requests, the same ones for the same seed', async () => {
    const run = async () => {
      emu.setFaults({ seed: 42, rateLimitRate: 0.5 });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await post(body())).status);
      return statuses;
    };
    const first = await run();
    expect(first).toContain(429);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
  });

  it('can break the tool input (missing required member, wrong type)', async () => {
    emu.faults.invalidOutputRate = 1;
    const msg = await (await post(body())).json();
    expect(msg.content[0].input).not.toHaveProperty('mood');
    expect(typeof msg.content[0].input.score).toBe('string');
  });

  it('counts requests', async () => {
    const before = emu.requests();
    await post(body());
    await post(body(), { 'x-api-key': 'wrong' });
    expect(emu.requests()).toBe(before + 2);
  });
});
