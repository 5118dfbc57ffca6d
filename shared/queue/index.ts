export * from './queues.ts';
export * from './ledger.ts';
export * from './publisher.ts';
export * from './enqueue.ts';
export * from './worker.ts';
export * from './sweeper.ts';
export * from './admin.ts';
