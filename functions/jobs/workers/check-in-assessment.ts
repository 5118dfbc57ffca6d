// check-in-assessment { checkInId }: the BE, DO, RECEIVE assessment and embedding of a check-in.
// Writes ai_assessment, classification, embedding, usage and ai_assessment_status `complete`
// in one transaction.
import { z } from 'zod';
import { recordUsage } from '../../../shared/ai/accounting.ts';
import { checkInAssessmentPrompt } from '../../../shared/ai/prompts.ts';
import { checkInAssessmentOutputSchema, toCheckInAssessment, toolNames } from '../../../shared/ai/schemas.ts';
import { PermanentJobError, type JobHandler } from '../../../shared/queue/worker.ts';
import { parsePayload, runAiJob, toVector, type AiWorkerDeps } from './runtime.ts';

const Payload = z.object({ checkInId: z.uuid() });

/** Earlier check-ins given as context: few and recent, to keep the prompt small. */
const RECENT_CHECK_INS = 3;

export function checkInAssessmentWorker(deps: AiWorkerDeps): JobHandler {
  return async (ctx) => {
    const { checkInId } = parsePayload(Payload, ctx.job.payload);
    const { sql } = ctx;
    const [checkIn] = await sql<{ user_id: string; content: string; created_at: Date }[]>`
      select user_id, content, created_at from public.check_ins where id = ${checkInId}`;
    if (!checkIn) throw new PermanentJobError('CHECK_IN_NOT_FOUND');

    await runAiJob(ctx, deps, {
      userId: checkIn.user_id,
      setStatus: async (status) => {
        await sql`update public.check_ins set ai_assessment_status = ${status} where id = ${checkInId}`;
      },
      work: async (profile, meter) => {
        const recent = await sql<{ content: string }[]>`
          select content from public.check_ins
           where user_id = ${checkIn.user_id} and id <> ${checkInId} and created_at <= ${checkIn.created_at}
           order by created_at desc limit ${RECENT_CHECK_INS}`;
        const output = await meter.structured(
          'check-in-assessment',
          checkInAssessmentPrompt(
            {
              language: profile.language,
              personalization: profile.personalization,
              content: checkIn.content,
              recentCheckIns: recent.map((r) => r.content),
            },
            toolNames.checkInAssessment,
          ),
          { name: toolNames.checkInAssessment, schema: checkInAssessmentOutputSchema, maxTokens: 2048 },
        );
        const assessment = toCheckInAssessment(output);
        const { vector, model } = await meter.embedding(checkIn.content);
        await sql.begin(async (tx) => {
          await tx`
            update public.check_ins set
              ai_assessment = ${tx.json(assessment as never)},
              classification = ${assessment.classification},
              embedding = ${toVector(vector)},
              embedding_model = ${model},
              ai_assessment_status = 'complete'
            where id = ${checkInId}`;
          await recordUsage(tx, meter.calls, { userId: checkIn.user_id, jobId: ctx.job.id });
        });
      },
    });
  };
}
