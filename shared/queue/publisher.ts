// Transport: publishes `{ jobId }` to the queue's worker URL through the official QStash SDK.
import { Client } from '@upstash/qstash';
import type { Config } from '../config/env.ts';
import { workerUrl, type QueueName } from './queues.ts';

export interface PublishRequest {
  queue: QueueName;
  jobId: string;
  /** Seconds before delivery. */
  delaySeconds: number;
  /** QStash redeliveries after the first attempt. */
  retries: number;
}

export interface JobPublisher {
  /** Resolves to the QStash message id; rejects when QStash cannot be reached. */
  publish(req: PublishRequest): Promise<string>;
}

export interface QStashPublisherOptions {
  /** QStash API base (the emulator locally); the SDK default is Upstash's cloud. */
  baseUrl?: string;
  token: string;
  publicFunctionsUrl: string;
  /** Upper bound on one publish, so an API request never hangs on QStash. */
  timeoutMs?: number;
}

export function createQStashPublisher(opts: QStashPublisherOptions): JobPublisher {
  const client = new Client({
    token: opts.token,
    ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
    // Never the SDK's dev mode (it would ignore our URL and token).
    devMode: false,
    enableTelemetry: false,
    // Network errors only; the ledger + sweeper cover longer outages.
    retry: { retries: 2, backoff: (n) => 100 * 2 ** n },
  });
  const timeoutMs = opts.timeoutMs ?? 5000;
  return {
    async publish(req) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('QStash publish timed out')), timeoutMs);
      });
      try {
        const res = await Promise.race([
          client.publishJSON({
            url: workerUrl(opts.publicFunctionsUrl, req.queue),
            body: { jobId: req.jobId },
            retries: req.retries,
            ...(req.delaySeconds > 0 ? { delay: req.delaySeconds } : {}),
          }),
          timeout,
        ]);
        return res.messageId;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export class QueueConfigError extends Error {
  override name = 'QueueConfigError';
}

/** The publisher from env; QSTASH_TOKEN and PUBLIC_FUNCTIONS_URL are required where jobs are enqueued. */
export function publisherFromConfig(config: Pick<Config, 'QSTASH_URL' | 'QSTASH_TOKEN' | 'PUBLIC_FUNCTIONS_URL'>): JobPublisher {
  if (!config.QSTASH_TOKEN || !config.PUBLIC_FUNCTIONS_URL) {
    throw new QueueConfigError('QSTASH_TOKEN and PUBLIC_FUNCTIONS_URL are required to publish jobs');
  }
  return createQStashPublisher({
    baseUrl: config.QSTASH_URL,
    token: config.QSTASH_TOKEN,
    publicFunctionsUrl: config.PUBLIC_FUNCTIONS_URL,
  });
}
