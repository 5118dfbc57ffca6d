// One place that turns Postgres errors into API errors, so no database error becomes a 500 when
// it is really the client's input. Unknown errors are returned unchanged (→ logged 500).
import { AppError } from '../http/errors.ts';

interface PgError {
  code?: string;
  message?: string;
  constraint_name?: string;
}

const isPgError = (err: unknown): err is PgError =>
  typeof err === 'object' && err !== null && typeof (err as PgError).code === 'string';

/** Constraint-specific codes for unique violations; anything else is a generic CONFLICT. */
const UNIQUE_CODES: Record<string, string> = {
  sessions_one_open_per_impulse: 'SESSION_ALREADY_OPEN',
  impulses_source_check_in_id_key: 'CHECK_IN_ALREADY_CONVERTED',
};

export function mapDbError(err: unknown): unknown {
  if (err instanceof AppError || !isPgError(err)) return err;
  switch (err.code) {
    case 'P0001':
      if (err.message === 'IMPULSE_QUOTA_EXCEEDED') return new AppError(403, 'IMPULSE_QUOTA_EXCEEDED');
      return err;
    case '23514': // check violation
    case '23502': // not null
    case '22001': // string too long
    case '22P02': // invalid text representation (uuid, enum)
    case '22007': // invalid datetime
    case '22003': // numeric out of range
    case '22023': // invalid parameter value
    case '22021': // character not in repertoire (a NUL in text)
    case '22P05': // untranslatable character (\u0000 in jsonb)
      return new AppError(400, 'VALIDATION_FAILED');
    case '23503': // foreign key: the linked row is absent or belongs to another user
      return new AppError(404, 'LINKED_ENTITY_NOT_FOUND');
    case '23505':
      return new AppError(409, UNIQUE_CODES[err.constraint_name ?? ''] ?? 'CONFLICT');
    case '42501': // RLS refused the write: behave as if the row did not exist
      return new AppError(404, 'NOT_FOUND');
    default:
      return err;
  }
}
