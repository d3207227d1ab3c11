// No circle of imports inside this package: each file may import only files "below" it, so the
// layers (configuration, execution, dialects, repositories, use cases) can be read and changed
// one at a time. Type-only imports and re-exports count too: a type imported back up the chain
// ties the files together as much as a value does. This reads the sources, resolves their
// relative imports, and fails on any cycle, naming it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = import.meta.dirname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** `import … from './x.js'`, `export … from '../y.js'`, `import './z.js'`, `import('./w.js')`: the relative specifiers. */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)'(\.{1,2}\/[^']+)'/g;

/** The relative specifiers `text` imports. */
function importsOf(text: string): string[] {
  return [...text.matchAll(RELATIVE_IMPORT)].map((match) => match[1]!);
}

function resolveImport(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${relative(SRC, from)} imports ${specifier}, which does not resolve`);
}

/** Every cycle of `graph` found by a depth-first walk, each as the files around it. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const seen = state.get(next);
      if (seen === 'open') cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (seen === undefined) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

describe('the import graph of packages/persistence/src', () => {
  const files = sources(SRC);
  const graph = new Map(files.map((file) => [relative(SRC, file).split('\\').join('/'), importsOf(readFileSync(file, 'utf8')).map((s) => relative(SRC, resolveImport(file, s)).split('\\').join('/'))]));

  it('is read from every source file, imports resolved', () => {
    expect(graph.get('create-database.ts')).toEqual(expect.arrayContaining(['dialects/dialect-registry.ts', 'execution/kysely-bridge.ts']));
    expect(graph.get('transaction.ts')).toEqual(expect.arrayContaining(['execution/scope.ts']));
    expect(graph.size).toBeGreaterThan(60);
  });

  it('has no cycle', () => {
    expect(cyclesOf(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('the check sees type-only imports, re-exports and dynamic imports, and finds a cycle through them', () => {
    const text = "import type { A } from './a.js';\nexport { B } from '../b.js';\nimport {\n  C,\n} from './c/index.js';\nconst d = await import('./d.js');\nimport { e } from 'kysely';";
    expect(importsOf(text)).toEqual(['./a.js', '../b.js', './c/index.js', './d.js']);
    const cyclic = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cyclesOf(cyclic)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    expect(cyclesOf(new Map([['a.ts', ['b.ts']], ['b.ts', []]]))).toEqual([]);
  });
});
