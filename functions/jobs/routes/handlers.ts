// The handler table of the jobs function. The AI workers come from createAiHandlers; a queue
// without a handler (notification-deliver until its worker exists) fails visibly (retryable
// from the console).
import type { Config } from '../../../shared/config/env.ts';
import { createAnthropicClient, createEmbeddingClient } from '../../../shared/ai/clients.ts';
import { PermanentJobError, type JobHandler } from '../../../shared/queue/worker.ts';
import type { QueueName } from '../../../shared/queue/queues.ts';
import type { AiWorkerDeps } from '../workers/runtime.ts';
import { impulseClassificationWorker } from '../workers/impulse-classification.ts';
import { unifiedGuidanceWorker } from '../workers/unified-guidance.ts';
import { sessionSummaryWorker } from '../workers/session-summary.ts';
import { checkInAssessmentWorker } from '../workers/check-in-assessment.ts';
import { insightsRegenerationWorker } from '../workers/insights-regeneration.ts';

export type JobHandlers = Partial<Record<QueueName, JobHandler>>;
export type { AiWorkerDeps };

export const missingHandler: JobHandler = async () => {
  throw new PermanentJobError('HANDLER_MISSING');
};

export const defaultHandlers: JobHandlers = {};

export const AI_QUEUES = [
  'impulse-classification',
  'unified-guidance',
  'session-summary',
  'check-in-assessment',
  'insights-regeneration',
] as const satisfies readonly QueueName[];

/** The five AI queues' handlers, built from the AI clients. */
export function createAiHandlers(deps: AiWorkerDeps): JobHandlers {
  return {
    'impulse-classification': impulseClassificationWorker(deps),
    'unified-guidance': unifiedGuidanceWorker(deps),
    'session-summary': sessionSummaryWorker(deps),
    'check-in-assessment': checkInAssessmentWorker(deps),
    'insights-regeneration': insightsRegenerationWorker(deps),
  };
}

type AiConfig = Pick<
  Config,
  'ANTHROPIC_API_KEY' | 'ANTHROPIC_BASE_URL' | 'ANTHROPIC_MODEL' | 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'EMBEDDING_MODEL' | 'AI_REQUEST_TIMEOUT_MS'
>;

/**
 * AI handlers from the configuration. Without the API keys every AI job fails at once with
 * AI_NOT_CONFIGURED (the function still starts, and the jobs can be retried once keys are set).
 */
export function aiHandlersFromConfig(config: AiConfig): JobHandlers {
  if (!config.ANTHROPIC_API_KEY || !config.OPENAI_API_KEY) {
    const notConfigured: JobHandler = async () => {
      throw new PermanentJobError('AI_NOT_CONFIGURED');
    };
    return Object.fromEntries(AI_QUEUES.map((q) => [q, notConfigured])) as JobHandlers;
  }
  return createAiHandlers({
    anthropic: createAnthropicClient(config),
    openai: createEmbeddingClient(config),
    model: config.ANTHROPIC_MODEL,
    embeddingModel: config.EMBEDDING_MODEL,
  });
}
