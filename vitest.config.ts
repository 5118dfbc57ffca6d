import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel, each on its own cloned database.
    maxWorkers: 2,
    env: { LOG_SILENT: 'true' },
  },
});
