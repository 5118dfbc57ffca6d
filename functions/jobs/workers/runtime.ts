// What every AI worker shares: its dependencies, the user's profile, the monthly limit check,
// the AI calls with usage metering, and the rule that turns an error into retry or failure.
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { z } from 'zod';
import type { Sql } from '../../../shared/db/client.ts';
import { checkMonthlyLimit, recordUsage, saveRateLimitSnapshot, type AiCall, type AiWorkload } from '../../../shared/ai/accounting.ts';
import { embed } from '../../../shared/ai/embeddings.ts';
import { AiError, InvalidAiOutputError } from '../../../shared/ai/errors.ts';
import type { Personalization, PromptLanguage, PromptPair, StepNumber } from '../../../shared/ai/prompts.ts';
import { generateStructured } from '../../../shared/ai/structured.ts';
import { PermanentJobError, type JobContext } from '../../../shared/queue/worker.ts';

export interface AiWorkerDeps {
  anthropic: Anthropic;
  openai: OpenAI;
  /** Anthropic model of every structured call. */
  model: string;
  /** OpenAI embedding model; stored in embedding_model. */
  embeddingModel: string;
}

export interface UserProfile {
  id: string;
  tier: string;
  /** The single access rule (public.is_subscription_active) for this profile, now. */
  active: boolean;
  language: PromptLanguage;
  personalization: Personalization;
}

export async function loadProfile(sql: Sql, userId: string): Promise<UserProfile> {
  const [p] = await sql<
    { id: string; subscription_tier: string; active: boolean; preferred_language: string | null; ai_personalization_enabled: boolean; display_name: string | null; gender: string | null; birth_year: number | null }[]
  >`select id, subscription_tier,
           public.is_subscription_active(subscription_tier, subscription_status, trial_ends_at, subscription_end_date, is_partner) as active,
           preferred_language, ai_personalization_enabled, display_name, gender, birth_year
      from public.profiles where id = ${userId}`;
  if (!p) throw new PermanentJobError('PROFILE_NOT_FOUND');
  return {
    id: p.id,
    tier: p.subscription_tier,
    active: p.active,
    language: p.preferred_language === 'no' ? 'no' : 'en',
    personalization: {
      enabled: p.ai_personalization_enabled,
      displayName: p.display_name,
      gender: p.gender,
      birthYear: p.birth_year,
    },
  };
}

/** Retryable failure with a stable code for jobs.last_error (never a message with content). */
export class AiJobError extends Error {
  override name = 'AiJobError';
  constructor(readonly code: string) {
    super(code);
  }
}

export const isLastAttempt = (ctx: JobContext) => ctx.job.attempts >= ctx.job.max_attempts;

/**
 * Maps an error of a worker run to what the queue should do. Retryable provider errors and
 * invalid model output are retried (the model may do better next time); other provider errors
 * (auth, bad request, not configured) are permanent.
 */
export function classifyError(err: unknown): AiJobError | PermanentJobError | unknown {
  if (err instanceof PermanentJobError || err instanceof AiJobError) return err;
  if (err instanceof InvalidAiOutputError) return new AiJobError('AI_OUTPUT_INVALID');
  if (err instanceof AiError) {
    const code = `AI_${err.kind.toUpperCase()}`;
    return err.retryable ? new AiJobError(code) : new PermanentJobError(code);
  }
  return err;
}

/**
 * Runs one AI job: marks the entity processing, checks access and the monthly limit, runs `work`, and on a
 * failure that ends the job (permanent, or the last attempt) marks the entity failed.
 */
export async function runAiJob(
  ctx: JobContext,
  deps: AiWorkerDeps,
  opts: {
    userId: string;
    /** The session whose totals include this job's AI calls, for session jobs. */
    sessionId?: string;
    /** Entity status setters; absent for jobs without an entity status (insights). */
    setStatus?: (status: 'processing' | 'failed') => Promise<void>;
    work: (profile: UserProfile, meter: UsageMeter) => Promise<void>;
  },
): Promise<void> {
  const { sql, log } = ctx;
  // A crash after the result commit but before the ledger update makes QStash redeliver:
  // the result is already written (usage rows carry this job id), so do nothing twice.
  const [done] = await sql`select 1 from public.ai_usage where job_id = ${ctx.job.id} and outcome = 'used' limit 1`;
  if (done) {
    log.info('job result already written');
    return;
  }
  const profile = await loadProfile(sql, opts.userId);
  await opts.setStatus?.('processing');
  const meter = new UsageMeter(deps, ctx);
  try {
    // The API gates these routes too; a job queued before the subscription ended must not spend AI.
    if (!profile.active) {
      log.warn('subscription inactive', { tier: profile.tier });
      throw new PermanentJobError('SUBSCRIPTION_INACTIVE');
    }
    const limit = await checkMonthlyLimit(sql, opts.userId, profile.tier);
    if (limit.exceeded) {
      log.warn('monthly AI limit reached', { tier: profile.tier, limit: limit.limit });
      throw new PermanentJobError('AI_LIMIT_EXCEEDED');
    }
    await opts.work(profile, meter);
  } catch (err) {
    await meter.recordWasted({ userId: opts.userId, sessionId: opts.sessionId });
    const mapped = classifyError(err);
    if (mapped instanceof PermanentJobError || isLastAttempt(ctx)) {
      await opts.setStatus?.('failed');
    }
    throw mapped;
  }
}

/**
 * Collects the calls of one run: written to ai_usage with the result, in its transaction, or as
 * `wasted` rows when the run ends without a result (they were billed all the same).
 */
export class UsageMeter {
  readonly calls: AiCall[] = [];
  /** Billed calls whose output was rejected (invalid tool input). */
  private readonly rejected: AiCall[] = [];

  constructor(
    private readonly deps: AiWorkerDeps,
    private readonly ctx: JobContext,
  ) {}

  async structured<S extends z.ZodType>(
    workload: AiWorkload,
    prompt: PromptPair,
    tool: { name: string; schema: S; maxTokens: number },
  ): Promise<z.output<S>> {
    try {
      const result = await generateStructured({
        client: this.deps.anthropic,
        model: this.deps.model,
        system: prompt.system,
        prompt: prompt.prompt,
        toolName: tool.name,
        schema: tool.schema,
        maxTokens: tool.maxTokens,
      });
      this.calls.push({ workload, model: result.model, inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens });
      await this.saveSnapshot(result.model, result.rateLimits);
      return result.data;
    } catch (err) {
      if (err instanceof InvalidAiOutputError) {
        this.rejected.push({ workload, model: this.deps.model, inputTokens: err.usage.inputTokens, outputTokens: err.usage.outputTokens });
      }
      throw err;
    }
  }

  async embedding(text: string): Promise<{ vector: number[]; model: string }> {
    const result = await embed({ client: this.deps.openai, model: this.deps.embeddingModel, texts: [text] });
    this.calls.push({ workload: 'embedding', model: result.model, inputTokens: result.usage.inputTokens, outputTokens: 0 });
    return { vector: result.vectors[0]!, model: this.deps.embeddingModel };
  }

  /** Records every billed call of a run that ended without a result (numbers only, never content). */
  async recordWasted(ids: { userId: string; sessionId?: string }): Promise<void> {
    const wasted = [...this.calls, ...this.rejected].filter((c) => c.inputTokens + c.outputTokens > 0);
    if (wasted.length === 0) return;
    try {
      await this.ctx.sql.begin(async (tx) => {
        const totals = await recordUsage(tx, wasted, { ...ids, jobId: this.ctx.job.id }, 'wasted');
        if (ids.sessionId) {
          await tx`
            update public.sessions set
              total_input_tokens = total_input_tokens + ${totals.inputTokens},
              total_output_tokens = total_output_tokens + ${totals.outputTokens},
              total_cost = total_cost + ${totals.cost}
            where id = ${ids.sessionId}`;
        }
      });
    } catch (err) {
      // Accounting must not hide the job's own failure; the numbers are still in the log.
      this.ctx.log.warn('wasted AI usage not recorded', { calls: wasted.length, error: err instanceof Error ? err.name : typeof err });
    }
  }

  private async saveSnapshot(model: string, snapshot: Parameters<typeof saveRateLimitSnapshot>[2]) {
    try {
      await saveRateLimitSnapshot(this.ctx.sql, model, snapshot);
    } catch (err) {
      this.ctx.log.warn('rate-limit snapshot not saved', { error: err instanceof Error ? err.name : typeof err });
    }
  }
}

/** Parses a payload of ids; a malformed one can never succeed. */
export function parsePayload<S extends z.ZodType>(schema: S, payload: unknown): z.output<S> {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) throw new PermanentJobError('JOB_PAYLOAD_INVALID');
  return parsed.data;
}

/** pgvector's text form of a vector. */
export const toVector = (v: readonly number[]) => `[${v.join(',')}]`;

export interface SessionRow {
  id: string;
  user_id: string;
  classification: 'contraction' | 'expansion';
  impulse_content: string;
  step_1_input: string | null;
  step_2_input: string | null;
  step_3_input: string | null;
  step_4_input: string | null;
  step_5_input: string | null;
  summary_document: Record<string, unknown> | null;
  user_reflection: string | null;
}

export async function loadSession(sql: Sql, sessionId: string): Promise<SessionRow | undefined> {
  const [row] = await sql<SessionRow[]>`
    select s.id, s.user_id, s.classification, i.content as impulse_content,
           s.step_1_input, s.step_2_input, s.step_3_input, s.step_4_input, s.step_5_input,
           s.summary_document, s.user_reflection
      from public.sessions s join public.impulses i on i.id = s.impulse_id
     where s.id = ${sessionId}`;
  return row;
}

/** The user's written inputs per step, in step order, skipping steps without input. */
export function stepInputs(s: SessionRow): { step: StepNumber; userInput: string }[] {
  const inputs = [s.step_1_input, s.step_2_input, s.step_3_input, s.step_4_input, s.step_5_input];
  return inputs.flatMap((input, i) => (input ? [{ step: (i + 1) as StepNumber, userInput: input }] : []));
}
