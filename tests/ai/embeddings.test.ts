// embed() through the official OpenAI SDK against the emulator: 512-dim unit vectors, the
// SDK's default base64 path, determinism, the similarity property, typed failures.
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIEmulator } from '../../local/emulators/openai/index.ts';
import { AiError, EMBEDDING_DIMENSIONS, createEmbeddingClient, embed } from '../../shared/ai/index.ts';

const apiKey = 'sk-openai-test';
const model = 'text-embedding-3-small';
let emu: Awaited<ReturnType<typeof startOpenAIEmulator>>;
let client: ReturnType<typeof createEmbeddingClient>;

beforeAll(async () => {
  emu = await startOpenAIEmulator({ port: 0, apiKey });
  client = createEmbeddingClient({ OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: `${emu.url}/v1`, AI_REQUEST_TIMEOUT_MS: 5_000 });
});
afterAll(() => emu.close());
beforeEach(() => emu.resetFaults());

const cosine = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);
const norm = (a: number[]) => Math.sqrt(cosine(a, a));

describe('embed', () => {
  it('returns one 512-dim unit vector per text, in order, with usage', async () => {
    const r = await embed({ client, model, texts: ['first text about work', 'second text about family'] });
    expect(EMBEDDING_DIMENSIONS).toBe(512);
    expect(r.vectors).toHaveLength(2);
    for (const v of r.vectors) {
      expect(v).toHaveLength(512);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(r.vectors[0]).not.toEqual(r.vectors[1]);
    expect(r.usage.inputTokens).toBeGreaterThan(0);
    expect(r.model).toBe(model);
  });

  it('is deterministic and matches the float encoding of the raw API', async () => {
    const text = 'Deterministic vectors for the same words';
    const [a] = (await embed({ client, model, texts: [text] })).vectors;
    const [b] = (await embed({ client, model, texts: [text] })).vectors;
    expect(b).toEqual(a);
    // The SDK asks for base64 when no encoding_format is given, and decodes it.
    expect(emu.lastRequest()).toMatchObject({ encoding_format: 'base64', dimensions: 512, model });
    const raw = await fetch(`${emu.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: text, dimensions: 512, encoding_format: 'float' }),
    }).then((res) => res.json());
    expect(raw.object).toBe('list');
    // base64 carries float32, so the SDK's decoded values equal the float answer at float32 precision.
    raw.data[0].embedding.forEach((v: number, i: number) => expect(a![i]).toBeCloseTo(v, 6));
  });

  it('gives texts sharing most words a cosine above 0.7 and unrelated texts below', async () => {
    const texts = [
      'I feel anxious about the meeting with my manager tomorrow morning',
      'I feel anxious about the meeting with my manager on Monday morning',
      'The garden tomatoes need water and sunshine this summer',
    ];
    const [similar1, similar2, unrelated] = (await embed({ client, model, texts })).vectors;
    expect(cosine(similar1!, similar2!)).toBeGreaterThan(0.7);
    expect(cosine(similar1!, unrelated!)).toBeLessThan(0.7);
    expect(cosine(similar1!, unrelated!)).toBeLessThan(0.3);
  });

  it('holds the similarity property for random word lists (property)', async () => {
    const vocabulary = fc.constantFrom(
      ...'river mountain anxious joyful career partner money health spirit breath shoulder courage family music garden ocean forest silence trust anger sadness teacher window morning evening'.split(' '),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(vocabulary, { minLength: 10, maxLength: 10 }),
        fc.uniqueArray(fc.constantFrom(...'alpha bravo charlie delta echo foxtrot golf hotel india juliet'.split(' ')), { minLength: 5, maxLength: 5 }),
        async (words, otherWords) => {
          const base = words.join(' ');
          const mostlyShared = [...words.slice(0, 9), otherWords[0]].join(' '); // 9 of 10 words shared
          const unrelated = otherWords.join(' ');
          const [a, b, c] = (await embed({ client, model, texts: [base, mostlyShared, unrelated] })).vectors;
          expect(cosine(a!, b!)).toBeGreaterThan(0.7);
          expect(cosine(a!, c!)).toBeLessThan(0.7);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('turns 429 into a retryable error with retry-after, 500 retryable, a bad key permanent', async () => {
    emu.setFaults({ rateLimitRate: 1, retryAfterSeconds: 3 });
    expect(await embed({ client, model, texts: ['x'] }).catch((e) => e)).toMatchObject({
      provider: 'openai', kind: 'rate_limited', status: 429, retryable: true, retryAfterSeconds: 3,
    });
    emu.setFaults({ rateLimitRate: 0, serverErrorRate: 1 });
    expect(await embed({ client, model, texts: ['x'] }).catch((e) => e)).toMatchObject({ kind: 'server_error', retryable: true });
    emu.resetFaults();
    const wrong = createEmbeddingClient({ OPENAI_API_KEY: 'bad', OPENAI_BASE_URL: `${emu.url}/v1`, AI_REQUEST_TIMEOUT_MS: 5_000 });
    const err = await embed({ client: wrong, model, texts: ['x'] }).catch((e) => e);
    expect(err).toBeInstanceOf(AiError);
    expect(err).toMatchObject({ kind: 'auth', status: 401, retryable: false });
  });

  it('takes fault switches over HTTP and times out on slow answers (retryable)', async () => {
    const res = await fetch(`${emu.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ delayMs: 1_000 }) });
    expect(await res.json()).toMatchObject({ delayMs: 1_000 });
    const impatient = createEmbeddingClient({ OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: `${emu.url}/v1`, AI_REQUEST_TIMEOUT_MS: 100 });
    expect(await embed({ client: impatient, model, texts: ['x'] }).catch((e) => e)).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('rejects invalid requests like the API does (permanent errors)', async () => {
    expect(await embed({ client, model: 'text-embedding-ada-002', texts: ['x'] }).catch((e) => e)).toMatchObject({
      kind: 'bad_request', status: 400, retryable: false,
    });
    expect(await embed({ client, model: 'no-such-model', texts: ['x'] }).catch((e) => e)).toMatchObject({ status: 404, retryable: false });
    expect(await embed({ client, model, texts: [''] }).catch((e) => e)).toMatchObject({ status: 400 });
    expect(await embed({ client, model, texts: ['x'], dimensions: 5000 }).catch((e) => e)).toMatchObject({ status: 400 });
  });

  it('does not call the API for an empty list', async () => {
    const before = emu.requests();
    expect(await embed({ client, model, texts: [] })).toEqual({ vectors: [], usage: { inputTokens: 0 }, model });
    expect(emu.requests()).toBe(before);
  });
});
