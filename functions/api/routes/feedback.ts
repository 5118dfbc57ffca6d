// User feedback to the operator (read in the console's feedback list).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../shared/http/context.ts';
import { withUser, type Sql } from '../../../shared/db/client.ts';
import { ok, okSchema } from '../../../shared/http/responses.ts';
import { errors, isoRequired, json, userSecurity } from './openapi-helpers.ts';

const FeedbackBody = z.object({ content: z.string().trim().min(1).max(5000) }).strict().openapi('FeedbackRequest');
const Feedback = z.object({ id: z.uuid(), content: z.string(), created_at: z.string() }).openapi('Feedback');

const route = createRoute({
  method: 'post',
  path: '/v1/feedback',
  tags: ['feedback'],
  summary: 'Send feedback to the team',
  security: userSecurity,
  request: { body: { required: true, ...json(FeedbackBody) } },
  responses: { 201: { description: 'Received', ...json(okSchema(Feedback)) }, ...errors([400, 'VALIDATION_FAILED'], [401, 'AUTH_*']) },
});

export function registerFeedback(app: OpenAPIHono<AppEnv>, sql: Sql): void {
  app.openapi(route, async (c) => {
    const user = c.var.user;
    const { content } = c.req.valid('json');
    const [row] = await withUser(sql, user, (tx) => tx<{ id: string; content: string; created_at: Date }[]>`
      insert into public.feedback (user_id, content) values (${user.sub}, ${content})
      returning id, content, created_at`);
    return c.json(ok({ id: row!.id, content: row!.content, created_at: isoRequired(row!.created_at) }), 201);
  });
}
