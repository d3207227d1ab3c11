// Statements that Kysely writes the same way for every database this product has used so far:
// RETURNING, ON CONFLICT, and LIKE with an escape character. A dialect names each of these in its
// own implementation on purpose; one whose database lacks the SQL writes its own instead.
import { type Expression, type InsertQueryBuilder, type InsertResult, type RawBuilder, type SelectExpression, type Selectable, type Selection, sql, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import type { KeptListCount, SqlDialect, UpsertSet } from './sql-dialect.js';

type StandardSql = Pick<
  SqlDialect,
  'insertReturningAll' | 'insertReturning' | 'updateReturningAll' | 'insertIgnoringDuplicates' | 'upsert' | 'containsLowerCase'
>;

/** The LIKE pattern (escape `\`) of "contains `needle`": its `\`, `%` and `_` match themselves. */
export function containsPattern(needle: string): string {
  return `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `column like pattern escape '\'`, the pattern bound as a parameter (prepared queries build it once). */
export function likePattern(column: Expression<string>, pattern: string): RawBuilder<boolean> {
  return sql<boolean>`${column} like ${pattern} escape '\\'`;
}

/**
 * `insert … returning`, `update … returning`, `insert … on conflict (…) do nothing | do update`,
 * and LIKE with an escape: standard enough that Kysely emits them identically for SQLite 3.35+ and
 * PostgreSQL.
 */
export const standardSql: StandardSql = {
  insertReturningAll<Tables, TB extends keyof Tables>(query: InsertQueryBuilder<Tables, TB, InsertResult>): InsertQueryBuilder<Tables, TB, Selectable<Tables[TB]>> {
    return query.returningAll();
  },

  insertReturning<Tables, TB extends keyof Tables, SE extends SelectExpression<Tables, TB>>(
    query: InsertQueryBuilder<Tables, TB, InsertResult>,
    selections: readonly SE[],
  ): InsertQueryBuilder<Tables, TB, Selection<Tables, TB, SE>> {
    return query.returning(selections);
  },

  updateReturningAll<Tables, UT extends keyof Tables, TB extends keyof Tables>(
    query: UpdateQueryBuilder<Tables, UT, TB, UpdateResult>,
  ): ReturnType<UpdateQueryBuilder<Tables, UT, TB, UpdateResult>['returningAll']> {
    return query.returningAll();
  },

  insertIgnoringDuplicates<Tables, TB extends keyof Tables>(
    query: InsertQueryBuilder<Tables, TB, InsertResult>,
    conflictColumns: readonly (keyof Tables[TB] & string)[],
  ): InsertQueryBuilder<Tables, TB, InsertResult> {
    return query.onConflict((oc) => oc.columns(conflictColumns as never).doNothing());
  },

  upsert<Tables, TB extends keyof Tables>(
    query: InsertQueryBuilder<Tables, TB, InsertResult>,
    conflictColumns: readonly (keyof Tables[TB] & string)[],
    set: UpsertSet<Tables, TB>,
  ): InsertQueryBuilder<Tables, TB, InsertResult> {
    return query.onConflict((oc) => oc.columns(conflictColumns as never).doUpdateSet(set));
  },

  containsLowerCase(column: Expression<string>, needle: string): RawBuilder<boolean> {
    return likePattern(column, containsPattern(needle));
  },
};

/** The names of a kept list count's triggers (migration 014), one per kind of write. */
export function listCountTriggers(list: KeptListCount): { insert: string; update: string; delete: string } {
  return { insert: `${list.table}_count_insert`, update: `${list.table}_count_update`, delete: `${list.table}_count_delete` };
}

/**
 * What a list-count trigger runs: the row `of` (`new` or `old`) counted `by` (+1 or -1) under its
 * key, its count row created when missing. Names and constants only, no parameter: it is DDL.
 */
export function bumpListCount(list: KeptListCount, of: 'new' | 'old', by: 1 | -1): RawBuilder<unknown> {
  const columns = sql.join(list.key.map((c) => sql.id(c)));
  const values = sql.join(list.key.map((c) => sql`${sql.raw(of)}.${sql.id(c)}`));
  return sql`insert into ${sql.id(list.counts)} (${columns}, "count") values (${values}, ${sql.raw(String(by))}) on conflict (${columns}) do update set "count" = ${sql.id(list.counts)}."count" + excluded."count"`;
}

/** Whether an update moved the row to another key: a key column `is distinct from` its old value. */
export function listCountKeyChanged(list: KeptListCount): RawBuilder<unknown> {
  return sql.join(
    list.key.map((c) => sql`old.${sql.id(c)} is distinct from new.${sql.id(c)}`),
    sql` or `,
  );
}
