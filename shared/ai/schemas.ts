// Shapes the model returns (tool inputs, validated with zod) and the shapes we store in the
// opaque jsonb columns (the model's output plus what only we know: names, timestamps).
import { z } from 'zod';

export const unitScore = z.number().min(0).max(1);
const text = (max: number) => z.string().min(1).max(max);

export const impulseClassification = z.enum(['contraction', 'expansion']);
export const checkInClassification = z.enum(['contraction', 'expansion', 'neutral']);
export const contentValidity = z.enum(['valid', 'low_confidence', 'gibberish']);
export const layerName = z.enum(['physical', 'emotional', 'mental', 'spiritual']);
export const insightKind = z.enum(['pattern', 'progress', 'guidance', 'synchronicity', 'shift']);

/** Tool names of the structured calls; one tool per workload. */
export const toolNames = {
  impulseAnalysis: 'record_impulse_analysis',
  stepGuidance: 'record_step_guidance',
  sessionSummary: 'record_session_summary',
  reflectionConclusion: 'record_reflection_conclusion',
  checkInAssessment: 'record_check_in_assessment',
  insights: 'record_insights',
} as const;

// ---------------------------------------------------------------- impulse analysis (ai_analysis)

export const layerAssessment = z.object({
  layer: layerName,
  confidence: unitScore,
  reasoning: text(600),
  perspective: text(600),
});

/**
 * What the model returns for an impulse. Area ids are limited to the areas that exist
 * (passed at call time), so the model cannot invent one; names are added by us.
 */
export function impulseAnalysisOutputSchema(areaIds: readonly string[]) {
  const areaId = areaIds.length > 0 ? z.enum(areaIds as [string, ...string[]]) : z.never();
  return z.object({
    classification: impulseClassification,
    contentValidity,
    validityConfidence: unitScore,
    title: text(120),
    summary: text(600),
    areas: z.array(z.object({ id: areaId, relevanceScore: unitScore })).max(areaIds.length > 0 ? 3 : 0),
    layers: z.object({ primary: layerAssessment, secondary: layerAssessment.optional() }),
  });
}
export type ImpulseAnalysisOutput = z.output<ReturnType<typeof impulseAnalysisOutputSchema>>;

/** The stored impulses.ai_analysis object (SPEC: impulses). */
export const aiAnalysisSchema = z.object({
  contentValidity,
  validityConfidence: unitScore,
  title: z.string(),
  summary: z.string(),
  areas: z.array(z.object({ id: z.uuid(), name: z.string(), relevanceScore: unitScore })),
  layers: z.object({ primary: layerAssessment, secondary: layerAssessment.optional() }),
  processedAt: z.iso.datetime({ offset: true }),
});
export type AiAnalysis = z.output<typeof aiAnalysisSchema>;

/** Builds the stored ai_analysis from the model output: area names from our table, processedAt now. */
export function toAiAnalysis(
  output: ImpulseAnalysisOutput,
  areas: readonly { id: string; name: string }[],
  now: Date = new Date(),
): AiAnalysis {
  const names = new Map(areas.map((a) => [a.id, a.name]));
  return {
    contentValidity: output.contentValidity,
    validityConfidence: output.validityConfidence,
    title: output.title,
    summary: output.summary,
    areas: output.areas
      .filter((a) => names.has(a.id))
      .map((a) => ({ id: a.id, name: names.get(a.id)!, relevanceScore: a.relevanceScore })),
    layers: output.layers,
    processedAt: now.toISOString(),
  };
}

// ---------------------------------------------------------------- session step guidance

export const stepGuidanceOutputSchema = z.object({
  guidance: text(1500),
  reflectionQuestion: text(300),
});
export type StepGuidanceOutput = z.output<typeof stepGuidanceOutputSchema>;

/** The text stored in sessions.step_N_guidance. */
export const stepGuidanceText = (g: StepGuidanceOutput) => `${g.guidance}\n\n${g.reflectionQuestion}`;

// ---------------------------------------------------------------- session summary and conclusion

export const summaryDocumentOutputSchema = z.object({
  title: text(120),
  summary: text(1200),
  startingPoint: text(600),
  newUnderstanding: text(600),
  breakthroughs: z.array(text(300)).max(5),
  nextSteps: z.array(text(300)).min(1).max(5),
  process: z
    .array(
      z.object({
        stepNumber: z.number().int().min(1).max(5),
        stepTitle: text(60),
        keyInsight: text(400),
        userInputs: z.array(z.string().max(2000)).max(10),
      }),
    )
    .min(1)
    .max(5),
  reflection: text(1200),
});
export type SummaryDocumentOutput = z.output<typeof summaryDocumentOutputSchema>;

/** The stored sessions.summary_document (SPEC: sessions). */
export const summaryDocumentSchema = summaryDocumentOutputSchema.extend({
  generatedAt: z.iso.datetime({ offset: true }),
});
export type SummaryDocument = z.output<typeof summaryDocumentSchema>;

export const toSummaryDocument = (o: SummaryDocumentOutput, now: Date = new Date()): SummaryDocument => ({
  ...o,
  generatedAt: now.toISOString(),
});

/** sessions.reflection_conclusion is text: the model returns it in one member. */
export const reflectionConclusionOutputSchema = z.object({ conclusion: text(1500) });
export type ReflectionConclusionOutput = z.output<typeof reflectionConclusionOutputSchema>;

// ---------------------------------------------------------------- check-in assessment (BE, DO, RECEIVE)

const dimension = z.object({
  /** What the check-in shows about this dimension, in the user's language. */
  observation: text(400),
  /** 0 = blocked/contracted in this dimension, 1 = fully open/aligned. */
  alignment: unitScore,
});

export const checkInAssessmentOutputSchema = z.object({
  classification: checkInClassification,
  be: dimension,
  do: dimension,
  receive: dimension,
  coachSuggestions: z
    .array(z.object({ focus: z.enum(['be', 'do', 'receive']), suggestion: text(300) }))
    .min(1)
    .max(3),
  summary: text(400),
});
export type CheckInAssessmentOutput = z.output<typeof checkInAssessmentOutputSchema>;

/** The stored check_ins.ai_assessment. */
export const checkInAssessmentSchema = checkInAssessmentOutputSchema.extend({
  assessedAt: z.iso.datetime({ offset: true }),
});
export type CheckInAssessment = z.output<typeof checkInAssessmentSchema>;

export const toCheckInAssessment = (o: CheckInAssessmentOutput, now: Date = new Date()): CheckInAssessment => ({
  ...o,
  assessedAt: now.toISOString(),
});

// ---------------------------------------------------------------- analytics insights

/** Insights for a user; data points may only refer to the entry ids we passed in. */
export function insightsOutputSchema(entryIds: readonly string[]) {
  const entryId = entryIds.length > 0 ? z.enum(entryIds as [string, ...string[]]) : z.never();
  return z.object({
    insights: z
      .array(
        z.object({
          kind: insightKind,
          title: text(120),
          body: text(800),
          dataPoints: z.object({
            entryIds: z.array(entryId).min(entryIds.length > 0 ? 1 : 0).max(10),
            confidence: unitScore,
          }),
        }),
      )
      .min(1)
      .max(5),
  });
}
export type InsightsOutput = z.output<ReturnType<typeof insightsOutputSchema>>;
