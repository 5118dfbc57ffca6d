// impulse-classification { impulseId }: AI analysis + embedding of one impulse. Writes
// ai_analysis, classification (the AI's value corrects the provisional one only while the impulse is
// still `captured`: a started session pins the type), content_validity,
// title, layer links, impulse_areas, embedding, usage and ai_status `complete` in one transaction.
import { z } from 'zod';
import { recordUsage } from '../../../shared/ai/accounting.ts';
import { impulseAnalysisPrompt } from '../../../shared/ai/prompts.ts';
import { impulseAnalysisOutputSchema, toAiAnalysis, toolNames } from '../../../shared/ai/schemas.ts';
import { PermanentJobError, type JobHandler } from '../../../shared/queue/worker.ts';
import { parsePayload, runAiJob, toVector, type AiWorkerDeps } from './runtime.ts';

const Payload = z.object({ impulseId: z.uuid() });

export function impulseClassificationWorker(deps: AiWorkerDeps): JobHandler {
  return async (ctx) => {
    const { impulseId } = parsePayload(Payload, ctx.job.payload);
    const { sql } = ctx;
    const [impulse] = await sql<{ user_id: string; content: string }[]>`
      select user_id, content from public.impulses where id = ${impulseId}`;
    if (!impulse) throw new PermanentJobError('IMPULSE_NOT_FOUND');

    await runAiJob(ctx, deps, {
      userId: impulse.user_id,
      setStatus: async (status) => {
        await sql`update public.impulses set ai_status = ${status} where id = ${impulseId}`;
      },
      work: async (profile, meter) => {
        const areas = await sql<{ id: string; name: string }[]>`select id, name from public.areas order by sort_order, name`;
        const layers = await sql<{ id: string; name: string }[]>`select id, name from public.layers`;
        const output = await meter.structured(
          'impulse-classification',
          impulseAnalysisPrompt(
            { language: profile.language, personalization: profile.personalization, content: impulse.content, areas },
            toolNames.impulseAnalysis,
          ),
          { name: toolNames.impulseAnalysis, schema: impulseAnalysisOutputSchema(areas.map((a) => a.id)), maxTokens: 2048 },
        );
        const analysis = toAiAnalysis(output, areas);
        const { vector, model: embeddingModel } = await meter.embedding(impulse.content);
        const layerId = (name: string | undefined) =>
          name ? (layers.find((l) => l.name.toLowerCase() === name)?.id ?? null) : null;
        const primary = layerId(analysis.layers.primary.layer);
        const secondary = layerId(analysis.layers.secondary?.layer);

        await sql.begin(async (tx) => {
          await tx`
            update public.impulses set
              ai_analysis = ${tx.json(analysis as never)},
              classification = case when processual_status = 'captured' then ${output.classification} else classification end,
              content_validity = ${analysis.contentValidity},
              title = ${analysis.title},
              primary_layer_id = ${primary},
              secondary_layer_id = ${secondary === primary ? null : secondary},
              embedding = ${toVector(vector)},
              embedding_model = ${embeddingModel},
              ai_status = 'complete'
            where id = ${impulseId}`;
          await tx`delete from public.impulse_areas where impulse_id = ${impulseId}`;
          if (analysis.areas.length > 0) {
            const rows = [...new Map(analysis.areas.map((a) => [a.id, a])).values()].map((a) => ({
              impulse_id: impulseId,
              user_id: impulse.user_id,
              area_id: a.id,
              relevance_score: Math.round(a.relevanceScore * 100) / 100,
            }));
            await tx`insert into public.impulse_areas ${tx(rows)}`;
          }
          await recordUsage(tx, meter.calls, { userId: impulse.user_id, jobId: ctx.job.id });
        });
      },
    });
  };
}
