// Query embeddings for semantic search, through shared/ai's embed() (OpenAI embeddings only).
import { createEmbeddingClient, embed, type EmbeddingConfig } from '../ai/embeddings.ts';

/** One 512-dimension vector for one text, with the billed model and tokens (for ai_usage). */
export interface QueryEmbedding {
  vector: number[];
  model: string;
  inputTokens: number;
}

/** Rejects when the embedding API fails. */
export type QueryEmbedder = (text: string, signal?: AbortSignal) => Promise<QueryEmbedding>;

/** Null when no OpenAI key is configured (search then answers 503 AI_UNAVAILABLE). */
export function createQueryEmbedder(config: EmbeddingConfig & { EMBEDDING_MODEL: string }): QueryEmbedder | null {
  if (!config.OPENAI_API_KEY) return null;
  const client = createEmbeddingClient(config);
  return async (text, signal) => {
    const { vectors, model, usage } = await embed({ client, model: config.EMBEDDING_MODEL, texts: [text], signal });
    return { vector: vectors[0]!, model, inputTokens: usage.inputTokens };
  };
}

/** pgvector's text form, passed as a parameter and cast to extensions.vector in SQL. */
export const toVectorLiteral = (v: number[]): string => `[${v.join(',')}]`;
