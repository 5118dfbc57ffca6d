import type { TestProject } from 'vitest/node';
import { prepareTemplate } from '../scripts/prepare-test-db.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDb: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const name = await prepareTemplate();
  process.env.TEST_TEMPLATE_DB = name;
  project.provide('templateDb', name);
}
