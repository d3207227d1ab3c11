// Row objects from arrays of values, for both runners: a driver's own row objects cost more to
// build than the statement cost to run (docs/benchmarks.md#rows-built-from-arrays).

/** Makes one row object from a statement's values, in column order. */
export type RowBuilder = (values: unknown[]) => Record<string, unknown>;

/**
 * One statement's row objects from its column names: an object literal written for those names,
 * which V8 builds from one template in a single step. The names come from the statement's own
 * columns and enter the code only as JSON string literals. A name that comes twice keeps its first
 * place and takes its last value, as the drivers' own objects do. `__proto__` in a literal would
 * set the prototype rather than a key, so a statement with that column name fills a copy instead.
 */
export function rowBuilder(names: readonly string[]): RowBuilder {
  if (names.includes('__proto__')) {
    return (values) => {
      const row: Record<string, unknown> = {};
      names.forEach((name, i) => Object.defineProperty(row, name, { value: values[i], enumerable: true, writable: true, configurable: true }));
      return row;
    };
  }
  const fields = names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`);
  return new Function('values', `'use strict'; return { ${fields.join(', ')} };`) as RowBuilder;
}
