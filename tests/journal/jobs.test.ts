// Jobs of journal writes: recorded in the same transaction, published after the commit, and a
// publish failure never fails the write (the row waits for the sweeper).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobPublisher, PublishRequest } from '../../shared/queue/publisher.ts';
import { call, createUser, startJournalStack, type JournalStack } from './setup.ts';

let stack: JournalStack;
let published: PublishRequest[] = [];
let failPublish = false;
const publisher: JobPublisher = {
  async publish(req) {
    if (failPublish) throw new Error('qstash down');
    published.push(req);
    return `msg_${published.length}`;
  },
};

beforeAll(async () => {
  stack = await startJournalStack({ publisher });
});
afterAll(async () => {
  await stack?.close();
});

describe('journal jobs', () => {
  it('publishes the recorded job after the commit and stores the message id', async () => {
    const user = await createUser(stack.db, 'pub');
    published = [];
    const res = await call(stack.app, user, 'POST', '/v1/impulses', { content: 'publish me' });
    expect(res.status).toBe(201);
    const [job] = await stack.db.sql`select id, queue, payload, status, qstash_message_id from public.jobs where user_id = ${user.id}`;
    expect(job).toMatchObject({ queue: 'impulse-classification', payload: { impulseId: res.body.data.id }, status: 'waiting', qstash_message_id: 'msg_1' });
    expect(published).toEqual([expect.objectContaining({ queue: 'impulse-classification', jobId: job!.id })]);
  });

  it('a publish failure keeps the write and leaves the job for the sweeper', async () => {
    const user = await createUser(stack.db, 'down');
    failPublish = true;
    try {
      const res = await call(stack.app, user, 'POST', '/v1/check-ins', { content: 'still saved' });
      expect(res.status).toBe(201);
      const [job] = await stack.db.sql`select queue, status, qstash_message_id from public.jobs where user_id = ${user.id}`;
      expect(job).toEqual({ queue: 'check-in-assessment', status: 'waiting', qstash_message_id: null });
    } finally {
      failPublish = false;
    }
  });

  it('a refused write records and publishes nothing', async () => {
    const user = await createUser(stack.db, 'refused');
    const imp = (await call(stack.app, user, 'POST', '/v1/impulses', { content: 'x' })).body.data.id;
    await call(stack.app, user, 'POST', '/v1/sessions', { impulse_id: imp });
    published = [];
    const [{ before }] = await stack.db.sql`select count(*)::int as before from public.jobs where user_id = ${user.id}` as any;
    const res = await call(stack.app, user, 'POST', '/v1/sessions', { impulse_id: imp });
    expect(res.status).toBe(409);
    const [{ after }] = await stack.db.sql`select count(*)::int as after from public.jobs where user_id = ${user.id}` as any;
    expect(after).toBe(before);
    expect(published).toEqual([]);
  });
});
