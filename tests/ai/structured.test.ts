// generateStructured through the official Anthropic SDK against the emulator: every workload
// schema validates, answers are deterministic, headers are parsed, failures are typed.
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { seededRandom } from '../../local/emulators/anthropic/common.ts';
import { startAnthropicEmulator } from '../../local/emulators/anthropic/index.ts';
import {
  AiError,
  InvalidAiOutputError,
  aiAnalysisSchema,
  checkInAssessmentOutputSchema,
  checkInAssessmentPrompt,
  checkInAssessmentSchema,
  createAnthropicClient,
  generateStructured,
  impulseAnalysisOutputSchema,
  impulseAnalysisPrompt,
  insightsOutputSchema,
  insightsPrompt,
  isRetryableAiError,
  reflectionConclusionOutputSchema,
  reflectionConclusionPrompt,
  sessionSummaryPrompt,
  stepGuidanceOutputSchema,
  stepGuidancePrompt,
  summaryDocumentOutputSchema,
  summaryDocumentSchema,
  toAiAnalysis,
  toCheckInAssessment,
  toSummaryDocument,
  toolInputSchema,
  toolNames,
} from '../../shared/ai/index.ts';

const apiKey = 'sk-ant-structured-test';
const model = 'claude-sonnet-4-6';
let emu: Awaited<ReturnType<typeof startAnthropicEmulator>>;
let client: ReturnType<typeof createAnthropicClient>;

const areas = [
  { id: '0b7c7d4e-1f2a-4b3c-8d4e-5f6a7b8c9d01', name: 'relationships' },
  { id: '1c8d8e5f-2a3b-4c4d-9e5f-6a7b8c9d0e12', name: 'career' },
  { id: '2d9e9f6a-3b4c-4d5e-8f6a-7b8c9d0e1f23', name: 'health' },
];
const common = { language: 'en' as const, personalization: { enabled: false } };

beforeAll(async () => {
  emu = await startAnthropicEmulator({ port: 0, apiKey });
  client = createAnthropicClient({ ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: emu.url, AI_REQUEST_TIMEOUT_MS: 5_000 });
});
afterAll(() => emu.close());
beforeEach(() => emu.resetFaults());

function analyse(content: string, attempts?: number) {
  const schema = impulseAnalysisOutputSchema(areas.map((a) => a.id));
  const { system, prompt } = impulseAnalysisPrompt({ ...common, content, areas }, toolNames.impulseAnalysis);
  return generateStructured({ client, model, system, prompt, toolName: toolNames.impulseAnalysis, schema, maxTokens: 1024, attempts });
}

describe('generateStructured', () => {
  it('returns a valid impulse analysis that becomes a valid stored ai_analysis', async () => {
    const result = await analyse('I am afraid my manager will see I am not good enough');
    expect(['contraction', 'expansion']).toContain(result.data.classification);
    for (const a of result.data.areas) expect(areas.map((x) => x.id)).toContain(a.id);
    expect(result.model).toBe(model);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.requestId).toMatch(/^req_/);

    const stored = toAiAnalysis(result.data, areas, new Date('2025-03-01T10:00:00Z'));
    expect(aiAnalysisSchema.parse(stored)).toEqual(stored);
    expect(stored.processedAt).toBe('2025-03-01T10:00:00.000Z');
    for (const a of stored.areas) expect(a.name).toBe(areas.find((x) => x.id === a.id)!.name);
  });

  it('sends one forced tool whose schema limits area ids to the allowed ones', async () => {
    await analyse('Tired of arguing with my partner');
    const sent = emu.lastRequest()!;
    expect(sent.tool_choice).toEqual({ type: 'tool', name: toolNames.impulseAnalysis });
    expect(sent.tools).toHaveLength(1);
    const areaItems = (sent.tools![0]!.input_schema.properties!.areas as { items: { properties: { id: { enum: string[] } } } }).items;
    expect(areaItems.properties.id.enum).toEqual(areas.map((a) => a.id));
  });

  it('is deterministic: the same prompt gives the same data', async () => {
    const a = await analyse('The sunrise made me feel connected to everything');
    const b = await analyse('The sunrise made me feel connected to everything');
    expect(b.data).toEqual(a.data);
  });

  it('validates step guidance for both session types and all five steps', async () => {
    for (const sessionType of ['contraction', 'expansion'] as const) {
      for (const step of [1, 2, 3, 4, 5] as const) {
        const { system, prompt } = stepGuidancePrompt(
          { ...common, sessionType, step, impulseContent: 'I never finish what I start', previousSteps: [] },
          toolNames.stepGuidance,
        );
        const r = await generateStructured({
          client, model, system, prompt, toolName: toolNames.stepGuidance, schema: stepGuidanceOutputSchema, maxTokens: 800,
        });
        expect(stepGuidanceOutputSchema.parse(r.data)).toEqual(r.data);
      }
    }
  });

  it('validates the summary document, the reflection conclusion, the check-in assessment and insights', async () => {
    const summaryPrompt = sessionSummaryPrompt(
      {
        ...common,
        sessionType: 'contraction',
        impulseContent: 'Fear of speaking up in meetings',
        steps: [1, 2, 3, 4, 5].map((n) => ({ stepNumber: n as 1, userInputs: [`my answer to step ${n} about meetings`] })),
      },
      toolNames.sessionSummary,
    );
    const summary = await generateStructured({
      client, model, ...summaryPrompt, toolName: toolNames.sessionSummary, schema: summaryDocumentOutputSchema, maxTokens: 2000,
    });
    const doc = toSummaryDocument(summary.data);
    expect(summaryDocumentSchema.parse(doc)).toEqual(doc);

    const conclusionPrompt = reflectionConclusionPrompt(
      { ...common, sessionType: 'expansion', summary: summary.data.summary, userReflection: 'I feel lighter now' },
      toolNames.reflectionConclusion,
    );
    const conclusion = await generateStructured({
      client, model, ...conclusionPrompt, toolName: toolNames.reflectionConclusion, schema: reflectionConclusionOutputSchema, maxTokens: 600,
    });
    expect(conclusion.data.conclusion.length).toBeGreaterThan(0);

    const checkInPrompt = checkInAssessmentPrompt({ ...common, content: 'Busy day, but I asked for help' }, toolNames.checkInAssessment);
    const checkIn = await generateStructured({
      client, model, ...checkInPrompt, toolName: toolNames.checkInAssessment, schema: checkInAssessmentOutputSchema, maxTokens: 800,
    });
    expect(['contraction', 'expansion', 'neutral']).toContain(checkIn.data.classification);
    const assessment = toCheckInAssessment(checkIn.data);
    expect(checkInAssessmentSchema.parse(assessment)).toEqual(assessment);

    const entries = areas.map((a, i) => ({ id: a.id, kind: 'impulse' as const, date: `2025-01-0${i + 1}`, text: `entry about ${a.name}` }));
    const insightsSchema = insightsOutputSchema(entries.map((e) => e.id));
    const insights = await generateStructured({
      client, model, ...insightsPrompt({ ...common, entries }, toolNames.insights), toolName: toolNames.insights, schema: insightsSchema, maxTokens: 1500,
    });
    expect(insights.data.insights.length).toBeGreaterThan(0);
    for (const i of insights.data.insights) {
      expect(i.dataPoints.entryIds.length).toBeGreaterThan(0);
      for (const id of i.dataPoints.entryIds) expect(entries.map((e) => e.id)).toContain(id);
    }
  });

  it('validates for arbitrary journal text (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 200 }), async (content) => {
        const r = await analyse(content);
        expect(impulseAnalysisOutputSchema(areas.map((a) => a.id)).safeParse(r.data).success).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('parses the rate-limit headers', async () => {
    const r = await analyse('Rate limit headers please');
    expect(r.rateLimits.rpmLimit).toBe(4000);
    expect(r.rateLimits.rpmRemaining).toBeLessThan(4000);
    expect(r.rateLimits.itpmLimit).toBe(2_000_000);
    expect(r.rateLimits.otpmLimit).toBe(400_000);
    expect(r.rateLimits.otpmRemaining).toBeLessThan(400_000);
    expect(Date.parse(r.rateLimits.rpmResetAt!)).toBeGreaterThan(Date.now() - 60_000);
    expect(r.rateLimits.itpmResetAt).toBe(r.rateLimits.rpmResetAt);
  });

  it('turns a 429 into a retryable AiError carrying retry-after, without SDK retries', async () => {
    emu.setFaults({ rateLimitRate: 1, retryAfterSeconds: 12 });
    const before = emu.requests();
    const err = await analyse('rate limited').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AiError);
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429, retryable: true, retryAfterSeconds: 12 });
    expect(isRetryableAiError(err)).toBe(true);
    expect(emu.requests()).toBe(before + 1);
  });

  it('treats 529 and 500 as retryable and 401 as permanent', async () => {
    emu.setFaults({ overloadedRate: 1 });
    expect(await analyse('x').catch((e) => e)).toMatchObject({ kind: 'overloaded', status: 529, retryable: true });
    emu.setFaults({ overloadedRate: 0, serverErrorRate: 1 });
    expect(await analyse('x').catch((e) => e)).toMatchObject({ kind: 'server_error', status: 500, retryable: true });
    emu.resetFaults();
    const wrongKey = createAnthropicClient({ ANTHROPIC_API_KEY: 'nope', ANTHROPIC_BASE_URL: emu.url, AI_REQUEST_TIMEOUT_MS: 5_000 });
    const err = await generateStructured({
      client: wrongKey, model, system: 's', prompt: 'p', toolName: 't', schema: z.object({ a: z.string() }), maxTokens: 10,
    }).catch((e) => e);
    expect(err).toMatchObject({ kind: 'auth', status: 401, retryable: false });
  });

  it('treats a timeout as retryable', async () => {
    emu.setFaults({ delayMs: 1_000 });
    const impatient = createAnthropicClient({ ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: emu.url, AI_REQUEST_TIMEOUT_MS: 100 });
    const err = await generateStructured({
      client: impatient, model, system: 's', prompt: 'p', toolName: 't', schema: z.object({ a: z.string() }), maxTokens: 10,
    }).catch((e) => e);
    expect(err).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('retries invalid output with a repair turn, then throws InvalidAiOutputError with the summed usage', async () => {
    emu.setFaults({ invalidOutputRate: 1 });
    const before = emu.requests();
    const err = await analyse('My heart races when the phone rings', 2).catch((e) => e);
    expect(err).toBeInstanceOf(InvalidAiOutputError);
    expect(err).toMatchObject({ kind: 'invalid_output', retryable: false, attempts: 2, toolName: toolNames.impulseAnalysis });
    expect(err.issues.length).toBeGreaterThan(0);
    expect(err.usage.inputTokens).toBeGreaterThan(0);
    expect(emu.requests()).toBe(before + 2);
    // The second call showed the model its mistake.
    const repair = emu.lastRequest()!.messages;
    expect(repair).toHaveLength(3);
    expect(repair[2]!.content).toEqual([expect.objectContaining({ type: 'tool_result', is_error: true })]);
    // Nothing of the journal text leaks into the error.
    expect(JSON.stringify({ message: err.message, issues: err.issues })).not.toContain('phone');
  });

  it('succeeds on the repair turn when the second answer is valid', async () => {
    // A seed whose sequence at rate 0.5 breaks the first answer and not the second.
    const seed = [...Array(100).keys()].find((s) => {
      const rng = seededRandom(s);
      return rng() < 0.5 && rng() >= 0.5;
    })!;
    emu.setFaults({ invalidOutputRate: 0.5, seed });
    const before = emu.requests();
    const r = await analyse('Second time lucky', 2);
    expect(emu.requests()).toBe(before + 2);
    expect(r.usage.inputTokens).toBeGreaterThan(0);
    expect(emu.lastRequest()!.messages).toHaveLength(3);
  });

  it('does not repeat a call cut off by max_tokens', async () => {
    const before = emu.requests();
    const schema = impulseAnalysisOutputSchema(areas.map((a) => a.id));
    const { system, prompt } = impulseAnalysisPrompt({ ...common, content: 'short budget', areas }, toolNames.impulseAnalysis);
    const err = await generateStructured({
      client, model, system, prompt, toolName: toolNames.impulseAnalysis, schema, maxTokens: 5, attempts: 3,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(InvalidAiOutputError);
    expect(err.attempts).toBe(1);
    expect(err.issues[0].message).toContain('max_tokens');
    expect(emu.requests()).toBe(before + 1);
  });

  it('builds an object input_schema from zod without $schema', () => {
    const s = toolInputSchema(z.object({ a: z.string(), b: z.number().min(0).max(1).optional() }));
    expect(s).toMatchObject({ type: 'object', required: ['a'] });
    expect(s).not.toHaveProperty('$schema');
    expect(() => toolInputSchema(z.string())).toThrow();
  });
});
