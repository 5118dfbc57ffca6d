// insights-regeneration { userId }: AI insights across the user's recent impulses, completed
// sessions and check-ins. Replaces the user's analytics_insights and writes usage in one
// transaction. No entity status: the insights list itself is the result.
import { z } from 'zod';
import { recordUsage } from '../../../shared/ai/accounting.ts';
import { insightsPrompt } from '../../../shared/ai/prompts.ts';
import { insightsOutputSchema, toolNames } from '../../../shared/ai/schemas.ts';
import type { JobHandler } from '../../../shared/queue/worker.ts';
import { parsePayload, runAiJob, type AiWorkerDeps } from './runtime.ts';

const Payload = z.object({ userId: z.uuid() });

/** The most recent entries of each kind sent to the model, and the text cut per entry. */
const ENTRIES_PER_KIND = 15;
const TEXT_CHARS = 600;

interface Entry {
  id: string;
  kind: 'impulse' | 'session' | 'check_in';
  date: string;
  classification: string | null;
  text: string;
}

export function insightsRegenerationWorker(deps: AiWorkerDeps): JobHandler {
  return async (ctx) => {
    const { userId } = parsePayload(Payload, ctx.job.payload);
    const { sql } = ctx;
    await runAiJob(ctx, deps, {
      userId,
      work: async (profile, meter) => {
        const entries = await sql<Entry[]>`
          (select id, 'impulse' as kind, to_char(created_at, 'YYYY-MM-DD') as date, classification::text as classification,
                  left(content, ${TEXT_CHARS}) as text
             from public.impulses where user_id = ${userId} order by created_at desc limit ${ENTRIES_PER_KIND})
          union all
          (select s.id, 'session', to_char(s.created_at, 'YYYY-MM-DD'), s.classification::text,
                  left(coalesce(s.summary_document ->> 'summary', i.content), ${TEXT_CHARS})
             from public.sessions s join public.impulses i on i.id = s.impulse_id
            where s.user_id = ${userId} and s.status = 'completed' order by s.created_at desc limit ${ENTRIES_PER_KIND})
          union all
          (select id, 'check_in', to_char(created_at, 'YYYY-MM-DD'), classification, left(content, ${TEXT_CHARS})
             from public.check_ins where user_id = ${userId} order by created_at desc limit ${ENTRIES_PER_KIND})`;
        if (entries.length === 0) {
          ctx.log.info('no entries for insights');
          return;
        }
        const output = await meter.structured(
          'insights-regeneration',
          insightsPrompt({ language: profile.language, personalization: profile.personalization, entries }, toolNames.insights),
          { name: toolNames.insights, schema: insightsOutputSchema(entries.map((e) => e.id)), maxTokens: 4096 },
        );
        await sql.begin(async (tx) => {
          await tx`delete from public.analytics_insights where user_id = ${userId}`;
          for (const i of output.insights) {
            const dataPoints = { entryIds: [...new Set(i.dataPoints.entryIds)], confidence: i.dataPoints.confidence };
            await tx`
              insert into public.analytics_insights (user_id, kind, title, content, data_points)
              values (${userId}, ${i.kind}, ${i.title}, ${i.body}, ${tx.json(dataPoints)})`;
          }
          await recordUsage(tx, meter.calls, { userId, jobId: ctx.job.id });
        });
      },
    });
  };
}
