// Query embeddings for semantic search, through shared/ai's embed() (OpenAI embeddings only).
import { createEmbeddingClient, embed, type EmbeddingConfig } from '../ai/embeddings.ts';

/** One 512-dimension vector for one text; rejects when the embedding API fails. */
export type QueryEmbedder = (text: string, signal?: AbortSignal) => Promise<number[]>;

/** Null when no OpenAI key is configured (search then answers 503 AI_UNAVAILABLE). */
export function createQueryEmbedder(config: EmbeddingConfig & { EMBEDDING_MODEL: string }): QueryEmbedder | null {
  if (!config.OPENAI_API_KEY) return null;
  const client = createEmbeddingClient(config);
  return async (text, signal) => {
    const { vectors } = await embed({ client, model: config.EMBEDDING_MODEL, texts: [text], signal });
    return vectors[0]!;
  };
}

/** pgvector's text form, passed as a parameter and cast to extensions.vector in SQL. */
export const toVectorLiteral = (v: number[]): string => `[${v.join(',')}]`;
