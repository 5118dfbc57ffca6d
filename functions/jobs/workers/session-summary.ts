// session-summary { sessionId } : the summary document of a completed session plus the session's
// embedding. { sessionId, reflection: true }: the AI conclusion on the user's reflection.
// Each writes its result, its status `complete`, usage rows and the session totals in one transaction.
import { z } from 'zod';
import { recordUsage } from '../../../shared/ai/accounting.ts';
import { reflectionConclusionPrompt, sessionSummaryPrompt, type StepNumber } from '../../../shared/ai/prompts.ts';
import {
  reflectionConclusionOutputSchema,
  summaryDocumentOutputSchema,
  toSummaryDocument,
  toolNames,
} from '../../../shared/ai/schemas.ts';
import { PermanentJobError, type JobContext, type JobHandler } from '../../../shared/queue/worker.ts';
import { loadSession, parsePayload, runAiJob, stepInputs, toVector, type AiWorkerDeps, type SessionRow } from './runtime.ts';

const Payload = z.object({ sessionId: z.uuid(), reflection: z.boolean().optional() });

export function sessionSummaryWorker(deps: AiWorkerDeps): JobHandler {
  return async (ctx) => {
    const { sessionId, reflection } = parsePayload(Payload, ctx.job.payload);
    const session = await loadSession(ctx.sql, sessionId);
    if (!session) throw new PermanentJobError('SESSION_NOT_FOUND');
    await (reflection ? conclude(ctx, deps, session) : summarize(ctx, deps, session));
  };
}

async function summarize(ctx: JobContext, deps: AiWorkerDeps, session: SessionRow) {
  const { sql } = ctx;
  await runAiJob(ctx, deps, {
    userId: session.user_id,
    sessionId: session.id,
    setStatus: async (status) => {
      await sql`update public.sessions set summary_status = ${status} where id = ${session.id}`;
    },
    work: async (profile, meter) => {
      const inputs = stepInputs(session);
      const steps = ([1, 2, 3, 4, 5] as StepNumber[]).map((n) => ({
        stepNumber: n,
        userInputs: inputs.filter((s) => s.step === n).map((s) => s.userInput),
      }));
      const output = await meter.structured(
        'session-summary',
        sessionSummaryPrompt(
          {
            language: profile.language,
            personalization: profile.personalization,
            sessionType: session.classification,
            impulseContent: session.impulse_content,
            steps,
          },
          toolNames.sessionSummary,
        ),
        { name: toolNames.sessionSummary, schema: summaryDocumentOutputSchema, maxTokens: 4096 },
      );
      const document = toSummaryDocument(output);
      const { vector, model } = await meter.embedding(
        [session.impulse_content, document.title, document.summary, document.newUnderstanding].join('\n'),
      );
      await sql.begin(async (tx) => {
        const totals = await recordUsage(tx, meter.calls, { userId: session.user_id, sessionId: session.id, jobId: ctx.job.id });
        await tx`
          update public.sessions set
            summary_document = ${tx.json(document as never)},
            summary_status = 'complete',
            embedding = ${toVector(vector)},
            embedding_model = ${model},
            total_input_tokens = total_input_tokens + ${totals.inputTokens},
            total_output_tokens = total_output_tokens + ${totals.outputTokens},
            total_cost = total_cost + ${totals.cost}
          where id = ${session.id}`;
      });
    },
  });
}

async function conclude(ctx: JobContext, deps: AiWorkerDeps, session: SessionRow) {
  const { sql } = ctx;
  const setStatus = async (status: 'processing' | 'failed') => {
    await sql`update public.sessions set reflection_status = ${status} where id = ${session.id}`;
  };
  if (!session.user_reflection) {
    await setStatus('failed');
    throw new PermanentJobError('REFLECTION_MISSING');
  }
  const userReflection = session.user_reflection;
  await runAiJob(ctx, deps, {
    userId: session.user_id,
    sessionId: session.id,
    setStatus,
    work: async (profile, meter) => {
      const summary = typeof session.summary_document?.summary === 'string' ? session.summary_document.summary : session.impulse_content;
      const output = await meter.structured(
        'session-summary',
        reflectionConclusionPrompt(
          {
            language: profile.language,
            personalization: profile.personalization,
            sessionType: session.classification,
            summary,
            userReflection,
          },
          toolNames.reflectionConclusion,
        ),
        { name: toolNames.reflectionConclusion, schema: reflectionConclusionOutputSchema, maxTokens: 1024 },
      );
      await sql.begin(async (tx) => {
        const totals = await recordUsage(tx, meter.calls, { userId: session.user_id, sessionId: session.id, jobId: ctx.job.id });
        await tx`
          update public.sessions set
            reflection_conclusion = ${output.conclusion},
            summary_document = case when summary_document is null then null
              else jsonb_set(summary_document, '{reflection}', to_jsonb(${output.conclusion}::text)) end,
            reflection_status = 'complete',
            total_input_tokens = total_input_tokens + ${totals.inputTokens},
            total_output_tokens = total_output_tokens + ${totals.outputTokens},
            total_cost = total_cost + ${totals.cost}
          where id = ${session.id}`;
      });
    },
  });
}
