// Use cases orchestrate (lock, decide, write, event) and repositories hold the SQL: a query built
// in an operation file is one a reader of the repository misses, and one that bypasses the table's
// mapper and its kept list counts. This reads the operation sources, like grep, and fails on any
// statement built there.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const HERE = import.meta.dirname;

/** What building or running SQL looks like in this code base: Kysely's entry points on a scope, or a raw template. */
const SQL = /\.db\s*\.\s*(selectFrom|insertInto|updateTable|deleteFrom|with|executeQuery|transaction)\b|\bsql\s*`/g;

/** Each statement found in `text`, as `file:line: the line`; a builder chain may span lines. */
function statementsIn(name: string, text: string): string[] {
  const lines = text.split('\n');
  return [...text.matchAll(SQL)].map((match) => {
    const line = text.slice(0, match.index).split('\n').length;
    return `${name}:${line}: ${lines[line - 1]!.trim()}`;
  });
}

describe('use cases', () => {
  const files = readdirSync(HERE).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));

  it('are found', () => {
    expect(files).toEqual(expect.arrayContaining(['adjustment-operations.ts', 'inbound-operations.ts', 'transfer-operations.ts']));
  });

  it('build no SQL: every statement lives in a repository', () => {
    expect(files.flatMap((name) => statementsIn(name, readFileSync(join(HERE, name), 'utf8')))).toEqual([]);
  });

  it('the check sees a statement written the way the repositories write them', () => {
    expect(statementsIn('a.ts', "const x = 1;\nawait tx.db.insertInto('transfer_items').values(rows).execute();")).toEqual(["a.ts:2: await tx.db.insertInto('transfer_items').values(rows).execute();"]);
    expect(statementsIn('a.ts', "await tx.db\n  .selectFrom('locations')\n  .execute();")).toHaveLength(1);
    expect(statementsIn('a.ts', 'await sql`select 1`.execute(tx.db);')).toHaveLength(1);
    expect(statementsIn('a.ts', 'await scope.db.transaction().execute(work);')).toHaveLength(1);
    expect(statementsIn('a.ts', 'await insertTransferItems(tx, itemRows);\nreturn withTransaction(scope, work);')).toEqual([]);
  });
});
