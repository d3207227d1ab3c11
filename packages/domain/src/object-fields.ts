// Objects built from another one and a few more fields, on the request path. On Node 20 (V8 11) a
// literal that spreads an object and then sets more (`{ ...a, b }`, `{ ...a, ...b }`) gives every
// object it builds a hidden class of its own: about 1.5 µs each, a class and its descriptors left
// in the old generation for the next full collection, and slower reads of every such object
// (docs/benchmarks.md#spread-then-extended-objects). The lint rule of the request path's folders
// points here (eslint.config.js).

/**
 * `{ ...base, ...extra }`, with the same own fields in the same order, built so that objects of the
 * same shapes share one hidden class. For the product's own objects: `base` and `extra` are not
 * parsed input (a `__proto__` key would set the copy's prototype, as `Object.assign` does).
 *
 * @example
 * withFields(record, { status: 'approved' as const, approvedAt }); // { ...record, status, approvedAt }
 */
export function withFields<B extends object, E extends object>(base: B, extra: E): Omit<B, keyof E> & E {
  return Object.assign({}, base, extra);
}
