import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createInternalClient } from './client.js';

const here = import.meta.dirname;

describe('the client subpath', () => {
  it('loads no server code: every import other than @trpc/client is type-only', () => {
    // verbatimModuleSyntax guarantees that `import type` is erased and everything else is kept.
    const source = readFileSync(join(here, 'client.ts'), 'utf8');
    const statements = [...source.matchAll(/^(import|export)\s[^;]*?from\s+'([^']+)';/gms)].map((m) => ({ text: m[0], from: m[2]! }));
    expect(statements.length).toBeGreaterThan(0);
    const runtime = statements.filter((s) => !/^(import|export) type\s/.test(s.text)).map((s) => s.from);
    expect([...new Set(runtime)]).toEqual(['@trpc/client']);
  });

  it('is published as "./client" beside "."', () => {
    const pkg = JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8')) as { exports: Record<string, Record<string, string>> };
    expect(pkg.exports['./client']).toEqual({ '@pits/source': './src/client.ts', types: './dist/client.d.ts', default: './dist/client.js' });
  });

  it('builds a client for a base URL or a /trpc URL without contacting the server', () => {
    expect(typeof createInternalClient('http://127.0.0.1:1', 'token').partners.list.query).toBe('function');
    expect(typeof createInternalClient('http://127.0.0.1:1/trpc/', 'token').apiKeys.create.mutate).toBe('function');
  });
});
