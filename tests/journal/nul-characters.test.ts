// A NUL character (\u0000) passes JSON and zod but Postgres refuses it in text (22021): every route
// that writes user text answers a 400 envelope, never a 500, whether or not it maps DB errors itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createUser, startJournalStack, type JournalStack } from './setup.ts';

let s: JournalStack;
beforeAll(async () => {
  s = await startJournalStack();
});
afterAll(() => s.close());

const NUL_TEXT = 'before\u0000after';

describe('a NUL character in user text', () => {
  it.each([
    ['POST', '/v1/impulses', { content: NUL_TEXT }],
    ['POST', '/v1/notes', { content: NUL_TEXT }],
    ['POST', '/v1/check-ins', { content: NUL_TEXT }],
    ['POST', '/v1/feedback', { content: NUL_TEXT }],
    ['PATCH', '/v1/profile', { display_name: NUL_TEXT }],
  ] as const)('%s %s answers 400 VALIDATION_FAILED', async (method, path, body) => {
    const user = await createUser(s.db, 'nul');
    const res = await call(s.app, user, method, path, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_FAILED' } });
  });

  it('the same text without the NUL is accepted', async () => {
    const user = await createUser(s.db, 'no-nul');
    const res = await call(s.app, user, 'POST', '/v1/feedback', { content: 'before after' });
    expect(res.status).toBe(201);
  });
});
