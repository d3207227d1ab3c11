// Only this folder knows the databases by name (and the configuration that chooses one): a name
// anywhere else in packages/*/src or apps/*/src is a difference that escaped the dialect module,
// one that a new dialect would silently miss. This reads the source tree, like grep, and fails on
// any such line outside the allowed files and the listed exceptions, each with its reason.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REGISTERED_DIALECTS } from './dialect-registry.js';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const SCANNED = ['packages', 'apps'];

/** Where dialects may be named: the dialect module, and each dialect's area store. */
const ALLOWED = [
  'packages/persistence/src/dialects/',
  'packages/service-runtime/src/process-settings.ts',
  // The area search and import SQL lives with the area repository: one store per dialect,
  // registered beside its dialect in dialects/dialect-registry.ts. The folder is allowed whole,
  // so a new dialect's area store needs no entry here.
  'packages/persistence/src/repositories/areas/',
];

/** Tests that must spell a name, and why. */
const EXCEPTIONS: Record<string, string> = {
  'packages/persistence/src/database-config.test.ts': 'tests the configuration itself: which DATABASE_URL chooses which dialect',
  'apps/gateway/src/config.test.ts': 'checks that DATABASE_URL reaches the app configuration as the dialect it names',
  'apps/webhook-worker/src/config.test.ts': 'checks that DATABASE_URL reaches the app configuration as the dialect it names',
  'apps/internal-api/src/config.test.ts': 'checks that DATABASE_URL reaches the app configuration as the dialect it names',
  'apps/internal-api/src/create-internal-api.test.ts': 'configures the app as its operator does, with a DATABASE_URL and a database configuration',
  'apps/importer/src/cli.test.ts': 'gives the command DATABASE_URLs as a user does, among them a server that cannot be reached',
  'apps/gateway/src/gateway-faults.test.ts': 'a silent TCP server stands in for a database server that stopped answering: only a networked dialect’s URL can point at it',
};

/** The names of every registered dialect, the drivers' module names, and their catalogue prefix. */
const NAMED = new RegExp([...REGISTERED_DIALECTS.map((d) => d.name), String.raw`from 'pg'`, String.raw`\bpg_\w`].join('|'), 'i');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function projectSources(): string[] {
  return SCANNED.flatMap((group) =>
    readdirSync(join(ROOT, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((project) => {
        const src = join(ROOT, group, project.name, 'src');
        try {
          return sourceFiles(src);
        } catch {
          return [];
        }
      }),
  );
}

describe('dialect names', () => {
  const files = projectSources().map((path) => relative(ROOT, path).split('\\').join('/'));
  const naming = new Map<string, string[]>();
  for (const file of files) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    const hits = lines.flatMap((line, i) => (NAMED.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
    if (hits.length > 0) naming.set(file, hits);
  }

  it('reads the whole source tree', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(files).toContain('packages/persistence/src/dialects/sql-dialect.ts');
    expect(files).toContain('apps/gateway/src/create-gateway.ts');
  });

  it('appear nowhere outside the dialect module, the configuration and the listed exceptions', () => {
    const outside = [...naming].filter(([file]) => !ALLOWED.some((allowed) => file.startsWith(allowed)) && !(file in EXCEPTIONS));
    expect(outside.flatMap(([, hits]) => hits)).toEqual([]);
  });

  it('lists no exception that no longer needs one', () => {
    expect(Object.keys(EXCEPTIONS).filter((file) => !naming.has(file))).toEqual([]);
  });
});
