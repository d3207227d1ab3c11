import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractSchemas } from './contract-catalog.js';

describe('contractSchemas', () => {
  it.each(contractSchemas.map((entry) => [entry.name, entry] as const))('%s converts to JSON Schema', (_name, entry) => {
    const json = z.toJSONSchema(entry.schema, entry.direction === 'request' ? { io: 'input' } : {});
    expect(json).toBeTypeOf('object');
  });

  it('gives every schema a unique id and a description for the OpenAPI document', () => {
    const ids = contractSchemas.map(({ schema }) => {
      const meta = z.globalRegistry.get(schema);
      expect(meta?.description, `${String(meta?.id)} description`).toBeTruthy();
      return meta?.id;
    });
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('converts all of them in one document without clashing ids', () => {
    const registry = z.registry<{ id: string }>();
    for (const { schema, name } of contractSchemas) registry.add(schema, { id: name });
    expect(() => z.toJSONSchema(registry, { io: 'input' })).not.toThrow();
  });

  it('documents query defaults and integer types as a client reads them', () => {
    const query = contractSchemas.find((e) => e.name === 'inboundListQuery');
    const json = z.toJSONSchema(query!.schema, { io: 'input' }) as { $defs: Record<string, { properties: Record<string, object> }> };
    expect(json.$defs['InboundListQuery']?.properties['per_page']).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
  });
});
