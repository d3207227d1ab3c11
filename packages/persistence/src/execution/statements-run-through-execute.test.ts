// One way to run a statement: repositories and use cases run every query with the functions of
// execute.ts on a scope, never with a builder's own `.execute()` (which inside a transaction would
// fail, and outside one would bypass the scope's runner) nor Kysely's transactions. This reads the
// sources, like grep, and fails on any such call.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..');
const CHECKED = ['repositories', 'use-cases'];

/** A builder or template run by Kysely itself, or a Kysely transaction, connection or stream. */
const SELF_RUN = /\.\s*(execute|executeTakeFirst|executeTakeFirstOrThrow|executeQuery|stream)\s*\(|\.db\s*\.\s*(transaction|connection|startTransaction)\s*\(/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Each self-run statement in `text`, as `file:line: the line`; a builder chain may span lines. */
function selfRunIn(name: string, text: string): string[] {
  const lines = text.split('\n');
  return [...text.matchAll(SELF_RUN)].map((match) => {
    const line = text.slice(0, match.index).split('\n').length;
    return `${name}:${line}: ${lines[line - 1]!.trim()}`;
  });
}

describe('repositories and use cases', () => {
  const files = CHECKED.flatMap((dir) => sources(join(SRC, dir)));

  it('are found, the area stores among them', () => {
    const names = files.map((path) => relative(SRC, path).split('\\').join('/'));
    expect(names).toEqual(expect.arrayContaining(['repositories/transfer-repository.ts', 'repositories/adjustment-repository.ts', 'repositories/areas/area-repository.ts', 'use-cases/adjustment-operations.ts']));
  });

  it('run every statement with execute(scope, query) and its siblings', () => {
    expect(files.flatMap((path) => selfRunIn(relative(SRC, path), readFileSync(path, 'utf8')))).toEqual([]);
  });

  it('the check sees each way a statement could run by itself, and not the execution functions', () => {
    expect(selfRunIn('a.ts', "const x = 1;\nawait tx.db.insertInto('transfer_items').values(rows).execute();")).toEqual(["a.ts:2: await tx.db.insertInto('transfer_items').values(rows).execute();"]);
    expect(selfRunIn('a.ts', "await tx.db\n  .selectFrom('locations')\n  .executeTakeFirst();")).toEqual(['a.ts:3: .executeTakeFirst();']);
    expect(selfRunIn('a.ts', 'await base.select(count).executeTakeFirstOrThrow();')).toHaveLength(1);
    expect(selfRunIn('a.ts', 'await sql`select 1`.execute(tx.db);')).toHaveLength(1);
    expect(selfRunIn('a.ts', 'await scope.db.executeQuery(compiled);')).toHaveLength(1);
    expect(selfRunIn('a.ts', 'await scope.db.transaction().execute(work);')).toHaveLength(2);
    expect(selfRunIn('a.ts', 'for await (const row of query.stream()) {}')).toHaveLength(1);
    expect(
      selfRunIn('a.ts', "await execute(tx, tx.db.selectFrom('locations'));\nawait executeTakeFirst(scope, byId.with({ id }));\nawait executeWrite(tx, sql`select 1`);\nreturn withTransaction(scope, work);"),
    ).toEqual([]);
  });
});
