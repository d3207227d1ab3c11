// Queries built once and then only bound. Building and compiling a Kysely query costs tens of
// microseconds; on the gateway's hot endpoints that was a fifth of the process's CPU, more than
// the embedded database spent executing. So a query is defined by a build that never sees the values: it names
// where each one goes with `param('name')`, and a compiled template is kept per dialect and shape.
//
// The shape is the only thing a build may depend on besides the dialect: the parts of the
// parameters that change the SQL text (a list's length, which optional filter is set), computed
// by the definition's own `shape` function on every call and part of the cache key. A build has
// nothing else to branch on, so a cached template can never stand for another call's SQL.
//
// A prepared query runs like any other query: `execute(scope, query.with(params))` (execution/).
import type { Compilable, CompiledQuery, RawBuilder } from 'kysely';
import type { Scope, ScopedQuery } from './execution/scope.js';

type Key = string | number;

/** Stands in for one value while the query is built; the compiled parameters say where it went. */
class ParamMarker {
  constructor(readonly path: readonly Key[]) {}
  #misuse(): never {
    throw new TypeError(`parameterised query: the build computed with parameter "${this.path.join('.')}"; compute it in the caller and pass it as a parameter`);
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

type Element<T> = T extends readonly (infer E)[] ? E : never;

/**
 * Names the parameter bound at this place of the query: `param('tenantId')`, a list element
 * `param('ids', 2)`, or a field of one `param('rows', 0, 'sku')`. Typed as the value it stands
 * for, so the query builder accepts it; at build time it is only a marker.
 */
export interface ParamRef<P> {
  <K extends keyof P & string>(key: K): P[K];
  <K extends keyof P & string>(key: K, index: number): Element<P[K]>;
  <K extends keyof P & string, F extends keyof Element<P[K]> & string>(key: K, index: number, field: F): Element<P[K]>[F];
}

/** What a build may branch on: plain data, computed by the definition's `shape` from each call's parameters. */
export type QueryShape = string | number | boolean | null | undefined | readonly QueryShape[] | { readonly [key: string]: QueryShape };

export interface QueryDefinition<P, R, S extends QueryShape> {
  /** The parts of the parameters that change the SQL text; omit it for a query of one fixed text. */
  shape?: (params: P) => S;
  /** Builds the query from markers only; it may branch on `shape`, never on a value. */
  build: (scope: Scope, param: ParamRef<P>, shape: S) => Compilable<R> | RawBuilder<R>;
}

export interface PreparedQuery<P, R> {
  /** The query bound to `params`, for the execution functions: `execute(scope, query.with(params))`. */
  with(params: P): ScopedQuery<R>;
  /** The compiled query for these parameters, as it would run. */
  compile(scope: Scope, params: P): CompiledQuery<R>;
}

/** Reads one bound value out of a call's parameters. */
type Binding = (params: unknown) => unknown;

interface Template {
  readonly compiled: CompiledQuery;
  readonly bindings: readonly Binding[];
}

function accessor(path: readonly Key[]): Binding {
  const [a, b, c] = path as [Key, Key?, Key?];
  type Bag = Record<Key, unknown>;
  if (path.length === 1) {
    // A whole list bound as one value would be `in (?)` with an array: wrong SQL on one database,
    // a driver error on the other. Lists are bound element by element (`markedList`).
    return (p) => {
      const value = (p as Bag)[a];
      if (Array.isArray(value)) throw new TypeError(`parameterised query: parameter "${String(a)}" is a list bound as one value; bind its elements with markedList(param, '${String(a)}', n)`);
      return value;
    };
  }
  if (path.length === 2) return (p) => ((p as Bag)[a] as Bag)[b!];
  return (p) => (((p as Bag)[a] as Bag)[b!] as Bag)[c!];
}

/** Templates kept per query and dialect; a query whose shapes keep changing is still correct, only built each time. */
const MAX_SHAPES = 256;

const shapeKey = (shape: QueryShape): string => (shape === undefined ? '' : typeof shape === 'object' && shape !== null ? JSON.stringify(shape) : String(shape));

/**
 * A query built once per dialect and shape, then only bound.
 *
 * @example
 * const byNumber = preparedQuery({
 *   build: (scope, param: ParamRef<{ tenantId: string; number: string }>) =>
 *     scope.db.selectFrom('adjustments').selectAll().where('tenant_id', '=', param('tenantId')).where('number', '=', param('number')),
 * });
 * const row = await executeTakeFirst(database, byNumber.with({ tenantId, number }));
 *
 * @example
 * const byIds = preparedQuery({
 *   shape: (p: { ids: number[] }) => p.ids.length,
 *   build: (scope, param, count) => scope.db.selectFrom('products').selectAll().where('id', 'in', Array.from({ length: count }, (_, i) => param('ids', i))),
 * });
 */
export function preparedQuery<P extends object, R, S extends QueryShape = undefined>(definition: QueryDefinition<P, R, S>): PreparedQuery<P, R> {
  const templates = new Map<Scope['dialect'], Map<string, Template>>();
  const param = ((...path: Key[]) => new ParamMarker(path)) as unknown as ParamRef<P>;

  const templateFor = (scope: Scope, params: P): Template => {
    let byShape = templates.get(scope.dialect);
    if (!byShape) {
      byShape = new Map();
      templates.set(scope.dialect, byShape);
    }
    const shape = (definition.shape ? definition.shape(params) : undefined) as S;
    const key = shapeKey(shape);
    let template = byShape.get(key);
    if (!template) {
      const built = definition.build(scope, param, shape);
      const compiled = 'isRawBuilder' in built ? built.compile(scope.db) : built.compile();
      const bindings = compiled.parameters.map((value): Binding => (value instanceof ParamMarker ? accessor(value.path) : () => value));
      template = { compiled, bindings };
      if (byShape.size < MAX_SHAPES) byShape.set(key, template);
    }
    return template;
  };

  const compile = (scope: Scope, params: P): CompiledQuery<R> => {
    const { compiled, bindings } = templateFor(scope, params);
    return { ...compiled, parameters: bindings.map((bind) => bind(params)) } as CompiledQuery<R>;
  };
  return {
    compile,
    with: (params) => ({ compileIn: (scope) => compile(scope, params) }),
  };
}

/**
 * `count` markers for the elements of a list parameter (an `in (...)` list).
 *
 * @example build: (scope, param, n) => scope.db.selectFrom('areas').selectAll().where('subdistrict_code', 'in', markedList(param, 'codes', n))
 */
export function markedList<P, K extends keyof P & string>(param: ParamRef<P>, key: K, count: number): Element<P[K]>[] {
  return Array.from({ length: count }, (_, i) => param(key, i));
}

/**
 * `count` rows of markers, one marker per column, for a multi-row insert of `param(key)`'s rows.
 *
 * @example
 * build: (scope, param, s) => scope.db.insertInto('stock_ledger').values(markedRows(param, 'rows', s.count, LEDGER_COLUMNS))
 */
export function markedRows<P, K extends keyof P & string, C extends keyof Element<P[K]> & string>(
  param: ParamRef<P>,
  key: K,
  count: number,
  columns: readonly C[],
): { [F in C]: Element<P[K]>[F] }[] {
  return Array.from({ length: count }, (_, i) => Object.fromEntries(columns.map((column) => [column, param(key, i, column)])) as { [F in C]: Element<P[K]>[F] });
}

/**
 * One marker per column, each named by the column: the values of a one-row insert or an update's
 * `set` whose parameters are the row itself.
 *
 * @example
 * build: (scope, param: ParamRef<NewRow>) => scope.db.insertInto('adjustments').values(markedColumns(param, ADJUSTMENT_COLUMNS))
 */
export function markedColumns<P, C extends keyof P & string>(param: ParamRef<P>, columns: readonly C[]): { [F in C]: P[F] } {
  return Object.fromEntries(columns.map((column) => [column, param(column)])) as { [F in C]: P[F] };
}
