// SDK clients built from Config only (the SDKs are told every option so they read no env vars).
// maxRetries is 0: the job queue retries with backoff, so SDK retries would multiply attempts
// and spend function time waiting inside a request.
import Anthropic from '@anthropic-ai/sdk';
import type { Config } from '../config/env.ts';
import { AiError } from './errors.ts';

export type AnthropicConfig = Pick<Config, 'ANTHROPIC_API_KEY' | 'ANTHROPIC_BASE_URL' | 'AI_REQUEST_TIMEOUT_MS'>;

export function createAnthropicClient(config: AnthropicConfig): Anthropic {
  if (!config.ANTHROPIC_API_KEY) throw new AiError('anthropic', 'not_configured', 'ANTHROPIC_API_KEY is not set');
  return new Anthropic({
    apiKey: config.ANTHROPIC_API_KEY,
    baseURL: config.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com',
    webhookKey: null,
    maxRetries: 0,
    timeout: config.AI_REQUEST_TIMEOUT_MS,
    // Debug logging would print request bodies (prompts, journal text): never enable it.
    logLevel: 'warn',
  });
}

export { createEmbeddingClient, type EmbeddingConfig } from './embeddings.ts';
