// Input that is never accepted (docs/input-rules.md), through every procedure of the internal API: text
// with NUL or unpaired surrogates in any field, dates outside years 1900 to 9999, prototype keys.
// The table is read from `procedureInputs`, the schemas the routers parse with, which must name every
// procedure of the router: a new text field gets the check without a new test.
import type { inferRouterInputs } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { testDialects } from '@pits/persistence/testing';
import { type AppRouter, type ProcedureInputs, appRouter, procedureInputs } from './router.js';
import { procedurePaths } from './testing/procedure-paths.js';
import { type TestApi, openTestApi, refusal } from './testing/test-api.js';
import { protectedProcedure, router } from './trpc.js';

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
};

/** Every path at which a JSON Schema accepts a string, and whether it is free text (no enum, format or pattern). */
function stringPaths(schema: JsonSchema, path: (string | number)[] = []): { path: (string | number)[]; free: boolean }[] {
  const found: { path: (string | number)[]; free: boolean }[] = [];
  const strings = [schema, ...(schema.anyOf ?? [])].filter((s) => s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string')));
  if (strings.length > 0) found.push({ path, free: strings.some((s) => !s.enum && !s.format && !s.pattern) });
  for (const [key, child] of Object.entries(schema.properties ?? {})) found.push(...stringPaths(child, [...path, key]));
  if (schema.items) found.push(...stringPaths(schema.items, [...path, 0]));
  return found;
}

/** An input holding only `value` at `path`: other fields may be missing, the issue at `path` is what counts. */
function only(path: (string | number)[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => (typeof key === 'number' ? [inner] : { [key]: inner }), value);
}

/** The inputs of every procedure by sub-router, as the schemas of a map of them accept them; null: none. */
type InputsOfMap<M> = { [R in keyof M]: { [P in keyof M[R]]: M[R][P] extends z.ZodType ? z.input<M[R][P]> : null } };

/**
 * A procedure's input as tRPC types it, written as a schema would accept it: tRPC adds `void` to an
 * input that may be left out, and types no input as `void` alone (null here).
 */
type AsSchemaInput<X> = [Exclude<X, void>] extends [never] ? null : undefined extends X ? Exclude<X, void> | undefined : X;

/** The inputs of every procedure of the router by sub-router, as its schemas would accept them. */
type RouterInputs = inferRouterInputs<AppRouter>;
type RouterSchemaInputs = { [R in keyof RouterInputs]: { [P in keyof RouterInputs[R]]: AsSchemaInput<RouterInputs[R][P]> } };

/** Every procedure by path (`partners.create`), with its input's schema or null when it takes none. */
const byResource: Record<string, Record<string, z.ZodType | null>> = procedureInputs;
const inputsByPath = Object.entries(byResource).flatMap(([resource, inputs]) => Object.entries(inputs).map(([name, input]) => ({ name: `${resource}.${name}`, input })));

/** Every procedure that takes input, with the schema it parses it with. */
const procedures = inputsByPath.flatMap(({ name, input }) => (input === null ? [] : [{ name, input }]));

const textCases = procedures.flatMap(({ name, input }) => {
  const json = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return stringPaths(json).flatMap(({ path, free }) =>
    (
      [
        ['NUL', 'x\u0000', 'must not contain the NUL character'],
        ['a lone surrogate', 'x\ud800', 'must not contain unpaired surrogates (invalid Unicode)'],
      ] as const
    ).map(([what, bad, issue]) => [`${name} ${path.join('.')}: ${what}`, { input, path, free, bad, issue }] as const),
  );
});

describe('the schemas of the procedures (procedureInputs)', () => {
  it('name every procedure the router serves, and nothing else', () => {
    const served = procedurePaths(appRouter);
    expect(served.length).toBeGreaterThan(0);
    expect(inputsByPath.map(({ name }) => name).sort()).toEqual(served.sort());
  });

  it('give no schema to the one procedure without input (partners.list), and a schema to every other', () => {
    expect(inputsByPath.filter(({ input }) => input === null).map(({ name }) => name)).toEqual(['partners.list']);
    expect(procedures.length).toBe(inputsByPath.length - 1);
    expectTypeOf<ProcedureInputs['partners']['list']>().toEqualTypeOf<null>();
    expectTypeOf<ProcedureInputs['partners']['byId']>().toEqualTypeOf<z.ZodType<unknown, { id: number }>>();
  });

  // Checked by the compiler (npm run typecheck): the map's inputs must equal the router's, so a
  // procedure missing from it or not in the router, a schema accepting other input than the router's,
  // or a schema where the procedure takes none fails it. `satisfies ProcedureInputs` in router.ts
  // refuses a missing procedure and an incompatible schema in the build as well.
  it('cannot miss a procedure or hold a schema other than the one the procedure parses with', () => {
    expectTypeOf<InputsOfMap<typeof procedureInputs>>().toEqualTypeOf<RouterSchemaInputs>();
    const { apiKeys: _apiKeys, ...withoutApiKeys } = procedureInputs;
    const { setTier: _setTier, ...withoutSetTier } = procedureInputs.partners;
    expectTypeOf(procedureInputs).toExtend<ProcedureInputs>();
    expectTypeOf(withoutApiKeys).not.toExtend<ProcedureInputs>();
    expectTypeOf(withoutSetTier).not.toExtend<ProcedureInputs['partners']>();
    expectTypeOf({ ...procedureInputs.partners, byId: procedureInputs.tenants.byId }).not.toExtend<ProcedureInputs['partners']>();
    expectTypeOf({ ...procedureInputs.partners, list: z.strictObject({}) }).not.toExtend<ProcedureInputs['partners']>();
  });

  it('are checked against paths read from the router object alone: its procedures, at any depth', () => {
    const noop = protectedProcedure.query(() => null);
    const nested = router({ ping: noop, outer: router({ inner: router({ deep: noop }), shallow: noop }) });
    expect(procedurePaths(nested)).toEqual(['ping', 'outer.inner.deep', 'outer.shallow']);
    expect(procedurePaths(router({}))).toEqual([]);
  });
});

describe('every text field of every procedure', () => {
  it('is found in the router', () => {
    const titles = textCases.map(([title]) => title);
    for (const expected of ['tenants.create name: NUL', 'partners.create name: NUL', 'locations.create address: NUL', 'products.create description: NUL', 'inbound.create lines.0.notes: NUL', 'webhooks.create url: NUL']) {
      expect(titles).toContain(expected);
    }
  });

  it.each(textCases)('%s is refused on that field', (_title, { input, path, free, bad, issue }) => {
    const result = input.safeParse(only(path, bad));
    expect(result.success).toBe(false);
    const here = result.error?.issues.find((i) => i.path.join('.') === path.join('.'));
    expect(here, JSON.stringify(result.error?.issues)).toBeDefined();
    if (free) expect(here?.message).toBe(issue);
  });
});

const dialects = await testDialects();

describe.each(dialects)('[%s] hostile input through the procedures', (dialect) => {
  let api: TestApi;
  let tenantId: string;
  beforeAll(async () => {
    api = await openTestApi(dialect);
    tenantId = (await api.caller.tenants.create({ name: 'Hostile Store' })).id;
  });
  afterAll(() => api.t.cleanup());

  /** How many of each thing the database holds, read back through the procedures. */
  async function counts() {
    return {
      tenants: (await api.caller.tenants.list({ perPage: 100 })).pagination.total,
      partners: (await api.caller.partners.list()).length,
      locations: (await api.caller.locations.list({ tenantId })).pagination.total,
      products: (await api.caller.products.list({ tenantId })).pagination.total,
      logistics: (await api.caller.logisticPreferences.list({ tenantId })).pagination.total,
    };
  }

  it.each([
    ['NUL', 'Toko\u0000Satu', 'must not contain the NUL character'],
    ['a lone surrogate', 'Toko \ud800', 'must not contain unpaired surrogates (invalid Unicode)'],
  ])('refuses %s in tenant, partner, location and product fields as BAD_REQUEST on the field, storing nothing', async (_, bad, issue) => {
    const before = await counts();
    // One call at a time: started together, the later refusals would wait unobserved.
    const calls: [() => Promise<unknown>, string][] = [
      [() => api.caller.tenants.create({ name: bad }), 'name'],
      [() => api.caller.tenants.create({ name: 'ok', tenantType: bad }), 'tenantType'],
      [() => api.caller.partners.create({ name: bad, email: 'dev@hostile.example', tier: 'small' }), 'name'],
      [() => api.caller.locations.create({ tenantId, code: 'WH-1', name: 'Main', address: bad }), 'address'],
      [() => api.caller.locations.create({ tenantId, code: bad, name: 'Main' }), 'code'],
      [() => api.caller.products.create({ tenantId, sku: 'SKU-1', name: 'Kopi', description: bad }), 'description'],
      [() => api.caller.products.create({ tenantId, sku: bad, name: 'Kopi' }), 'sku'],
      [() => api.caller.logisticPreferences.create({ tenantId, logisticProviderId: 1, logisticProviderName: 'JNE', username: bad, password: 'p', apiKey: 'k', apiSecret: 's' }), 'username'],
      [() => api.caller.logisticPreferences.create({ tenantId, logisticProviderId: 1, logisticProviderName: 'JNE', username: 'u', password: 'p', apiKey: 'k', apiSecret: 's', availableServiceTypes: { [bad]: true } }), `availableServiceTypes.${bad}`],
    ];
    for (const [call, field] of calls) {
      const r = await refusal(call());
      expect(r, field).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field });
      if (!field.startsWith('availableServiceTypes')) expect(r.issues[0]?.issue).toBe(issue);
    }
    expect(await counts()).toEqual(before);
  });

  it('refuses an inbound date outside years 1900 to 9999 on inboundDate', async () => {
    const location = await api.caller.locations.create({ tenantId, code: 'WH-DATE', name: 'Dates' });
    const product = await api.caller.products.create({ tenantId, sku: 'SKU-DATE', name: 'Dated' });
    for (const inboundDate of ['0000-01-01T00:00:00Z', '1899-12-31T23:59:59Z', '10000-01-01T00:00:00Z']) {
      const r = await refusal(api.caller.inbound.create({ tenantId, locationId: location.id, sourceType: 'purchase', sourceId: 1, sourceCode: 'PO-1', inboundDate, lines: [{ productId: product.id, expectedQuantity: 1 }] }));
      expect(r, inboundDate).toMatchObject({ code: 'BAD_REQUEST', field: 'inboundDate' });
    }
    const first = await api.caller.inbound.create({ tenantId, locationId: location.id, sourceType: 'purchase', sourceId: 1, sourceCode: 'PO-1', inboundDate: '1900-01-01T00:00:00Z', lines: [{ productId: product.id, expectedQuantity: 1 }] });
    expect(first.inboundDate.startsWith('1900-01-01T00:00:00.000')).toBe(true);
  });

  it('refuses __proto__ as a service type instead of dropping it, and never touches Object.prototype', async () => {
    const types: unknown = JSON.parse('{"__proto__": true, "constructor": true, "prototype": false}');
    const r = await refusal(
      api.caller.logisticPreferences.create({ tenantId, logisticProviderId: 1, logisticProviderName: 'JNE', username: 'u', password: 'p', apiKey: 'k', apiSecret: 's', availableServiceTypes: types as Record<string, boolean> }),
    );
    expect(r).toMatchObject({ code: 'BAD_REQUEST', field: 'availableServiceTypes.__proto__' });
    const strict = await refusal(api.caller.tenants.create(JSON.parse('{"name": "ok", "__proto__": {"polluted": true}}') as { name: string }));
    expect(strict).toMatchObject({ code: 'BAD_REQUEST', field: '__proto__' });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
