// One POST route per queue: /jobs/<queue>. Unknown queues fall through to the 404 handler.
import type { Hono } from 'hono';
import type { AppEnv } from '../../../shared/http/context.ts';
import { QUEUES } from '../../../shared/queue/queues.ts';
import { createQueueWorker, type WorkerDeps } from '../../../shared/queue/worker.ts';
import { missingHandler, type JobHandlers } from './handlers.ts';

export function registerWorkers(app: Hono<AppEnv>, handlers: JobHandlers, deps: WorkerDeps): void {
  for (const queue of QUEUES) {
    app.post(`/${queue}`, createQueueWorker(queue, handlers[queue] ?? missingHandler, deps));
  }
}
