// Small helpers for createRoute declarations of the app API routes.
import { z } from '@hono/zod-openapi';
import { ErrorEnvelope } from '../../../shared/http/responses.ts';

export const json = <T extends z.ZodTypeAny>(schema: T) => ({ content: { 'application/json': { schema } } });

export const errors = (...codes: Array<[number, string]>) =>
  Object.fromEntries(codes.map(([status, description]) => [status, { description, ...json(ErrorEnvelope) }]));

export const userSecurity = [{ apiKey: [], bearer: [] }];

/** Timestamps leave the API as ISO 8601 strings. */
export const iso = (d: Date | string | null | undefined): string | null =>
  d == null ? null : d instanceof Date ? d.toISOString() : new Date(d).toISOString();

export const isoRequired = (d: Date | string): string => (d instanceof Date ? d.toISOString() : new Date(d).toISOString());
