// unified-guidance { sessionId, step }: the AI guidance of one session step. Writes
// step_N_guidance, step_N_ai_status `complete`, usage rows and the session totals in one transaction.
import { z } from 'zod';
import { recordUsage } from '../../../shared/ai/accounting.ts';
import { stepGuidancePrompt, type StepNumber } from '../../../shared/ai/prompts.ts';
import { stepGuidanceOutputSchema, stepGuidanceText, toolNames } from '../../../shared/ai/schemas.ts';
import { PermanentJobError, type JobHandler } from '../../../shared/queue/worker.ts';
import { loadSession, parsePayload, runAiJob, stepInputs, type AiWorkerDeps } from './runtime.ts';

const Payload = z.object({ sessionId: z.uuid(), step: z.coerce.number().int().min(1).max(5) });

export function unifiedGuidanceWorker(deps: AiWorkerDeps): JobHandler {
  return async (ctx) => {
    const { sessionId, step } = parsePayload(Payload, ctx.job.payload);
    const { sql } = ctx;
    const session = await loadSession(sql, sessionId);
    if (!session) throw new PermanentJobError('SESSION_NOT_FOUND');
    const statusColumn = `step_${step}_ai_status`;

    await runAiJob(ctx, deps, {
      userId: session.user_id,
      sessionId,
      setStatus: async (status) => {
        await sql`update public.sessions set ${sql(statusColumn)} = ${status} where id = ${sessionId}`;
      },
      work: async (profile, meter) => {
        const output = await meter.structured(
          'unified-guidance',
          stepGuidancePrompt(
            {
              language: profile.language,
              personalization: profile.personalization,
              sessionType: session.classification,
              step: step as StepNumber,
              impulseContent: session.impulse_content,
              previousSteps: stepInputs(session).filter((s) => s.step < step),
            },
            toolNames.stepGuidance,
          ),
          { name: toolNames.stepGuidance, schema: stepGuidanceOutputSchema, maxTokens: 1024 },
        );
        await sql.begin(async (tx) => {
          const totals = await recordUsage(tx, meter.calls, { userId: session.user_id, sessionId, jobId: ctx.job.id });
          await tx`
            update public.sessions set
              ${tx(`step_${step}_guidance`)} = ${stepGuidanceText(output)},
              ${tx(statusColumn)} = 'complete',
              total_input_tokens = total_input_tokens + ${totals.inputTokens},
              total_output_tokens = total_output_tokens + ${totals.outputTokens},
              total_cost = total_cost + ${totals.cost}
            where id = ${sessionId}`;
        });
      },
    });
  };
}
