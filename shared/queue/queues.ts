// The six job queues. Each has one worker route: `${PUBLIC_FUNCTIONS_URL}/jobs/<queue>`.
export const QUEUES = [
  'impulse-classification',
  'unified-guidance',
  'session-summary',
  'insights-regeneration',
  'check-in-assessment',
  'notification-deliver',
] as const;

export type QueueName = (typeof QUEUES)[number];

export function isQueueName(value: string): value is QueueName {
  return (QUEUES as readonly string[]).includes(value);
}

/** The public URL QStash calls for a queue; also the `sub` the signature must carry. */
export function workerUrl(publicFunctionsUrl: string, queue: QueueName): string {
  return `${publicFunctionsUrl.replace(/\/+$/, '')}/jobs/${queue}`;
}
