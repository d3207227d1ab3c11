// Test support for the route tests (not exported): the assembled gateway on a test database of one
// dialect, with a seeded tenant world whose partner has a key and an installation, and a call
// helper that checks each response's status and parses it with the contract's schema.
import { type DialectName, createApiKey } from '@pits/persistence';
import { type TestDatabase, type TenantWorld, connectTenant, openTestDatabase, seedTenantWorld } from '@pits/persistence/testing';
import { pino } from 'pino';
import { expect } from 'vitest';
import type { z } from 'zod';
import { loadGatewayConfig } from '../config.js';
import { type Gateway, createGateway } from '../create-gateway.js';

export interface TenantGateway {
  t: TestDatabase;
  w: TenantWorld;
  key: string;
  url: string;
  /**
   * A request as the world's partner for its tenant: the answer must have status `expected`, and
   * is returned parsed by `schema` (which throws on any field the contract does not have).
   */
  call<S extends z.ZodType>(schema: S, method: string, path: string, body?: unknown, expected?: number, headers?: Record<string, string>): Promise<z.output<S>>;
  close(): Promise<void>;
}

/**
 * @example
 * const g = await openTenantGateway(dialect, { products: 4, openingGood: '10' });
 * const list = await g.call(productListResponse, 'GET', '/api/partner/v1/products');
 * afterAll(() => g.close());
 */
export async function openTenantGateway(dialect: DialectName, seed: Parameters<typeof seedTenantWorld>[1] = {}): Promise<TenantGateway> {
  const t = await openTestDatabase(dialect);
  const w = await seedTenantWorld(t.database, seed);
  const key = (await createApiKey(t.database, w.partner.id, { environment: 'test' }, new Date())).secret;
  await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, new Date());
  const config = loadGatewayConfig({ CREDENTIALS_KEY: 'c'.repeat(64), GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0' });
  const gateway: Gateway = createGateway(config, { database: t.database, logger: pino({ level: 'silent' }), sweepHolds: false });
  const { url } = await gateway.listen();
  return {
    t,
    w,
    key,
    url,
    async call(schema, method, path, body, expected = 200, headers = {}) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { Authorization: key, 'X-Tenant-Id': w.tenant.id, 'Content-Type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json: unknown = await res.json();
      expect({ status: res.status, json }).toMatchObject({ status: expected });
      return schema.parse(json);
    },
    async close() {
      await gateway.close();
      await t.cleanup();
    },
  };
}
