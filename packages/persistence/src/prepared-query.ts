// Prepared queries: the hot paths build each query with Kysely once per dialect and parameter
// shape, then only bind new values. Building and compiling a Kysely query costs tens of
// microseconds (it parses and freezes a node per column, then walks the tree); on the gateway's
// hot endpoints that was a fifth of the process's CPU, more than SQLite spent executing.
//
// How: the first call of a shape runs `build` with placeholder objects instead of the values, and
// compiles it. Every placeholder lands in the compiled query's parameters, so its position says
// which value to bind there on later calls. The shape is the parameters' structure: keys, array
// lengths, and the values that change the SQL rather than fill it (undefined, null, booleans).
// A build that computes with a value (arithmetic, string concatenation, `sql.lit`) would bake the
// first call's value into the SQL; placeholders throw when used that way, so it fails at once.
import type { Compilable, CompiledQuery, QueryResult, RawBuilder } from 'kysely';
import type { Dialect } from './database-config.js';
import type { Scope } from './transaction.js';

/** Stands in for one parameter while the query is built. */
class Placeholder {
  constructor(readonly path: readonly (string | number)[]) {}
  #misuse(): never {
    throw new TypeError(`prepared query: the build used the value of parameter "${this.path.join('.')}"; pass computed values as parameters`);
  }
  [Symbol.toPrimitive](): never {
    return this.#misuse();
  }
  toString(): never {
    return this.#misuse();
  }
  valueOf(): never {
    return this.#misuse();
  }
  toJSON(): never {
    return this.#misuse();
  }
}

/** Where a compiled parameter comes from: a path into the call's parameters, or a constant of the build. */
type Binding = { path: readonly (string | number)[] } | { constant: unknown };

interface Template {
  readonly compiled: CompiledQuery;
  readonly bindings: readonly Binding[];
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** The part of the parameters that decides the SQL text; values that only fill it are `$`. */
export function parameterShape(value: unknown): string {
  if (value === undefined) return 'u';
  if (value === null) return 'n';
  if (value === true) return 't';
  if (value === false) return 'f';
  if (Array.isArray(value)) return `[${value.map(parameterShape).join(',')}]`;
  if (isPlainObject(value)) {
    let out = '{';
    for (const key in value) out += `${JSON.stringify(key)}:${parameterShape(value[key])},`;
    return `${out}}`;
  }
  return '$';
}

/** The parameters with every SQL-filling value replaced by a placeholder that knows its path. */
function placeholders(value: unknown, path: (string | number)[]): unknown {
  if (value === undefined || value === null || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map((item, i) => placeholders(item, [...path, i]));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key in value) out[key] = placeholders(value[key], [...path, key]);
    return out;
  }
  return new Placeholder(path);
}

function valueAt(params: unknown, path: readonly (string | number)[]): unknown {
  let value = params;
  for (const step of path) value = (value as Record<string | number, unknown>)[step];
  return value;
}

/** Shapes kept per query and dialect; a query whose shapes keep changing stops being cached. */
const MAX_SHAPES = 256;

export interface PreparedQuery<P, R> {
  /** All rows. */
  execute(scope: Scope, params: P): Promise<R[]>;
  /** The first row, or undefined. */
  takeFirst(scope: Scope, params: P): Promise<R | undefined>;
  /** The driver's whole result (affected rows, insert id). */
  run(scope: Scope, params: P): Promise<QueryResult<R>>;
  /** The compiled query for these parameters, as it would run. */
  compile(scope: Scope, params: P): CompiledQuery<R>;
}

/**
 * A query built once per dialect and parameter shape, then only bound.
 *
 * @example
 * const byNumber = preparedQuery((scope, p: { tenantId: string; number: string }) =>
 *   scope.db.selectFrom('adjustments').selectAll().where('tenant_id', '=', p.tenantId).where('number', '=', p.number));
 * const row = await byNumber.takeFirst(database, { tenantId, number });
 */
export function preparedQuery<P extends object, R>(build: (scope: Scope, params: P) => Compilable<R> | RawBuilder<R>): PreparedQuery<P, R> {
  const templates: Record<Dialect, Map<string, Template>> = { sqlite: new Map(), postgres: new Map() };

  const templateFor = (scope: Scope, params: P): Template => {
    const byShape = templates[scope.dialect];
    const shape = parameterShape(params);
    let template = byShape.get(shape);
    if (!template) {
      const built = build(scope, placeholders(params, []) as P);
      const compiled = 'isRawBuilder' in built ? built.compile(scope.db) : built.compile();
      const bindings = compiled.parameters.map((value): Binding => (value instanceof Placeholder ? { path: value.path } : { constant: value }));
      template = { compiled, bindings };
      if (byShape.size < MAX_SHAPES) byShape.set(shape, template);
    }
    return template;
  };

  const compile = (scope: Scope, params: P): CompiledQuery<R> => {
    const { compiled, bindings } = templateFor(scope, params);
    const parameters = bindings.map((b) => ('path' in b ? valueAt(params, b.path) : b.constant));
    return { ...compiled, parameters } as CompiledQuery<R>;
  };

  const run = (scope: Scope, params: P) => scope.db.executeQuery(compile(scope, params));
  return {
    compile,
    run,
    execute: async (scope, params) => (await run(scope, params)).rows,
    takeFirst: async (scope, params) => (await run(scope, params)).rows[0],
  };
}
