// Impulse queries. Each returns a postgres.js query that the route awaits and the EXPLAIN test
// wraps, so the plan tested is the plan served. Always `user_id = <caller>` explicitly (besides
// RLS) so the (user_id, created_at desc, id desc) indexes apply.
import type { Tx } from '../client.ts';
import { type PageRequest, CURSOR_AT } from '../../http/pagination.ts';
import { beforeCursor } from '../cursor.ts';

export const IMPULSE_COLUMNS = `id, content, classification, processual_status, content_validity, ai_status,
  ai_analysis, title, source_check_in_id, created_at, updated_at`;

export interface ImpulseRow {
  id: string;
  content: string;
  classification: 'contraction' | 'expansion';
  processual_status: 'captured' | 'transforming' | 'transformed';
  content_validity: 'valid' | 'low_confidence' | 'gibberish';
  ai_status: 'idle' | 'pending' | 'processing' | 'complete' | 'failed';
  ai_analysis: Record<string, unknown> | null;
  title: string | null;
  source_check_in_id: string | null;
  created_at: Date;
  updated_at: Date;
  cursor_at: string;
}

export interface ImpulseFilters {
  classification?: string;
  processual_status?: string;
  content_validity?: string;
  area_id?: string;
  /** Already escaped for LIKE (see likePattern). */
  pattern?: string;
}

export function listImpulsesQuery(tx: Tx, userId: string, f: ImpulseFilters, page: PageRequest) {
  const none = tx``;
  return tx<ImpulseRow[]>`
    select ${tx.unsafe(IMPULSE_COLUMNS)}, ${tx.unsafe(CURSOR_AT)} as cursor_at
    from public.impulses i
    where i.user_id = ${userId}
      ${f.classification ? tx`and i.classification = ${f.classification}::public.impulse_classification` : none}
      ${f.processual_status ? tx`and i.processual_status = ${f.processual_status}::public.processual_status` : none}
      ${f.content_validity ? tx`and i.content_validity = ${f.content_validity}::public.content_validity` : none}
      ${f.area_id ? tx`and exists (select 1 from public.impulse_areas a
                                    where a.impulse_id = i.id and a.user_id = ${userId} and a.area_id = ${f.area_id})` : none}
      ${f.pattern ? tx`and i.content ilike ${f.pattern} escape '\\'` : none}
      ${beforeCursor(tx, page.cursor, 'i')}
    order by i.created_at desc, i.id desc
    limit ${page.limit + 1}`;
}
