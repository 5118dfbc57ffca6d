// ARCHITECTURE §1 and §3: the api function never loads a text-generation SDK (AI runs in jobs only),
// and deployed code imports no node: built-ins. Walks the static import graph from each entry.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../local/migrate.ts';

function importGraph(entry: string) {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/g)) {
      if (spec!.startsWith('.')) visit(resolve(dirname(file), spec!));
      else packages.add(spec!);
    }
  };
  visit(resolve(ROOT, entry));
  return { files: [...files], packages: [...packages] };
}

describe('module boundaries', () => {
  it('the api function does not import the Anthropic SDK', () => {
    const { packages } = importGraph('functions/api/index.ts');
    expect(packages).toContain('openai');
    expect(packages.filter((p) => p.startsWith('@anthropic-ai'))).toEqual([]);
  });

  it('deployed code imports no node: built-ins', () => {
    for (const fn of ['api', 'health', 'jobs', 'cron']) {
      const { packages } = importGraph(`functions/${fn}/index.ts`);
      expect(packages.filter((p) => p.startsWith('node:'))).toEqual([]);
    }
  });
});
