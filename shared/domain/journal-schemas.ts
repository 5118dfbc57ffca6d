// Schemas shared by the journal routes (impulses, sessions, notes, check-ins): enums, id params,
// opaque AI objects and OpenAPI response helpers.
import { z } from '@hono/zod-openapi';
import { ErrorEnvelope } from '../http/responses.ts';

export const ImpulseClassification = z.enum(['contraction', 'expansion']);
export const ProcessualStatus = z.enum(['captured', 'transforming', 'transformed']);
export const SessionStatus = z.enum(['created', 'active', 'completed', 'abandoned']);
export const NoteType = z.enum(['gratitude', 'reflection']);
export const AiWorkloadStatus = z.enum(['idle', 'pending', 'processing', 'complete', 'failed']);
export const ContentValidity = z.enum(['valid', 'low_confidence', 'gibberish']);
export const CheckInClassification = z.enum(['contraction', 'expansion', 'neutral']);

/** JSONB written by AI jobs: an object with arbitrary members, or null (spec: JSONB rule). */
export const OpaqueObject = z.record(z.string(), z.unknown()).nullable();

export const Uuid = z.uuid();
export const IdParam = z.object({ id: Uuid.openapi({ param: { name: 'id', in: 'path' } }) });

/** Text the user writes: trimmed, then length-checked. */
export const userText = (max: number) => z.string().trim().min(1).max(max);

export const json = <T extends z.ZodTypeAny>(schema: T) => ({ content: { 'application/json': { schema } } });
export const errorResponses = (...codes: Array<[number, string]>) =>
  Object.fromEntries(codes.map(([status, description]) => [status, { description, ...json(ErrorEnvelope) }]));

/** Both are required (one requirement object = AND). */
export const security: Array<Record<string, string[]>> = [{ apiKey: [], bearer: [] }];

/** postgres.js gives Dates; the API gives ISO 8601 strings. */
export const iso = (d: Date | string | null | undefined): string | null =>
  d == null ? null : d instanceof Date ? d.toISOString() : new Date(d).toISOString();
export const isoReq = (d: Date | string): string => iso(d) as string;

/** Escapes LIKE metacharacters so a user's `%` or `_` matches literally (escape char `\`). */
export const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
