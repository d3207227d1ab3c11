import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { InboundStatus, ReservationStatus, TransferStatus } from '@pits/domain';
import type { StockCheck } from '@pits/persistence';
import type { TRPCClient } from '@trpc/client';
import type { inferRouterContext, inferRouterError, inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type InternalApiInputs, type InternalApiOutputs, type InternalApiRouter, type InternalClient, createInternalClient } from './client.js';
import type { AppRouter } from './router.js';

const here = import.meta.dirname;

describe('the client subpath', () => {
  it('loads no server code: every import other than @trpc/client is type-only', () => {
    // verbatimModuleSyntax guarantees that `import type` is erased and everything else is kept.
    const source = readFileSync(join(here, 'client.ts'), 'utf8');
    const statements = [...source.matchAll(/^(import|export)\s[^;]*?from\s+'([^']+)';/gms)].map((m) => ({ text: m[0], from: m[2]! }));
    expect(statements.length).toBeGreaterThan(0);
    const runtime = statements.filter((s) => !/^(import|export) type\s/.test(s.text)).map((s) => s.from);
    expect([...new Set(runtime)]).toEqual(['@trpc/client']);
  });

  it('is published as "./client" beside "."', () => {
    const pkg = JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8')) as { exports: Record<string, Record<string, string>> };
    expect(pkg.exports['./client']).toEqual({ '@pits/source': './src/client.ts', types: './dist/client.d.ts', default: './dist/client.js' });
  });

  // Checked by the compiler (npm run typecheck): a difference fails it, whatever the routers become.
  it("is typed by the router without the server's context, and otherwise exactly as the router", () => {
    expectTypeOf<InternalClient>().toEqualTypeOf<TRPCClient<AppRouter>>();
    expectTypeOf<InternalApiInputs>().toEqualTypeOf<inferRouterInputs<AppRouter>>();
    expectTypeOf<InternalApiOutputs>().toEqualTypeOf<inferRouterOutputs<AppRouter>>();
    expectTypeOf<inferRouterError<InternalApiRouter>>().toEqualTypeOf<inferRouterError<AppRouter>>();
    expectTypeOf<inferRouterContext<InternalApiRouter>>().toEqualTypeOf<object>();
  });

  it("names the router as a client sees it through tRPC's exported types, never its `_def` internals", () => {
    const source = readFileSync(join(here, 'client-router.ts'), 'utf8').replace(/^\s*(\/\/|\*|\/\*\*).*$/gm, '');
    expect(source).not.toMatch(/\b_def\b|\b_config\b|\$types/);
  });

  it("no source of the internal API or its published client names tRPC's internals, tests included", () => {
    const roots = [here, join(here, '..', '..', '..', 'packages', 'internal-api-client', 'src')];
    const files = roots.flatMap((root) => readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => /\.[cm]?[jt]sx?$/.test(f)).map((f) => join(root, f)));
    expect(files).toContain(join(roots[1]!, 'index.ts'));
    expect(files).toContain(join(here, 'testing', 'test-api.ts'));
    const naming = files.filter((file) => file !== import.meta.filename && /\b_def\b|\b_config\b|\$types/.test(readFileSync(file, 'utf8')));
    expect(naming).toEqual([]);
  });

  it('builds a client for a base URL or a /trpc URL without contacting the server', () => {
    expect(typeof createInternalClient('http://127.0.0.1:1', 'token').partners.list.query).toBe('function');
    expect(typeof createInternalClient('http://127.0.0.1:1/trpc/', 'token').apiKeys.create.mutate).toBe('function');
  });

  it('types each output as its presenter builds it: exact decimals as strings, statuses as their unions', () => {
    type Transfer = InternalApiOutputs['transfers']['byNumber'];
    expectTypeOf<Transfer['status']>().toEqualTypeOf<TransferStatus>();
    expectTypeOf<Transfer['totalValue'] | Transfer['items'][number]['quantity']>().toEqualTypeOf<string>();
    expectTypeOf<InternalApiOutputs['transfers']['ship']>().toEqualTypeOf<Transfer>();
    expectTypeOf<Transfer['items'][number]['allocations']>().toEqualTypeOf<{ lotNumber: string; expiryDate: string | null; quantity: string }[]>();
    type Product = InternalApiOutputs['products']['byId'];
    expectTypeOf<Pick<Product, 'costPrice' | 'isBundle' | 'brand'>>().toEqualTypeOf<{ costPrice: string; isBundle: boolean; brand: string | null }>();
    expectTypeOf<InternalApiOutputs['products']['list']['products'][number]>().toEqualTypeOf<Product>();
    expectTypeOf<InternalApiOutputs['inbound']['byId']['status']>().toEqualTypeOf<InboundStatus>();
    expectTypeOf<InternalApiOutputs['inbound']['byId']['lines'][number]['pending']>().toEqualTypeOf<string>();
    expectTypeOf<InternalApiOutputs['stock']['ledger']['movements'][number]['bucket']>().toEqualTypeOf<'good' | 'damaged' | 'reserved'>();
    expectTypeOf<InternalApiOutputs['locations']['create']['latitude']>().toEqualTypeOf<string>();
    type Reservation = InternalApiOutputs['reservations']['get'];
    expectTypeOf<Reservation['status']>().toEqualTypeOf<ReservationStatus>();
    expectTypeOf<Reservation['items'][number]['quantity'] | Reservation['items'][number]['consumedQuantity']>().toEqualTypeOf<string>();
    expectTypeOf<InternalApiOutputs['reservations']['release']>().toEqualTypeOf<Reservation>();
    expectTypeOf<InternalApiOutputs['reservations']['list']['reservations'][number]>().toEqualTypeOf<Reservation>();
    type Level = InternalApiOutputs['stock']['levels']['levels'][number];
    expectTypeOf<Pick<Level, 'reservedForTransfers' | 'reservedForOrders' | 'version'>>().toEqualTypeOf<{ reservedForTransfers: string; reservedForOrders: string; version: number }>();
    type Endpoint = InternalApiOutputs['webhooks']['update'];
    expectTypeOf<Endpoint>().toEqualTypeOf<InternalApiOutputs['webhooks']['list'][number]>();
    expectTypeOf<Pick<Endpoint, 'isActive' | 'updatedAt'>>().toEqualTypeOf<{ isActive: boolean; updatedAt: string }>();
    expectTypeOf<Pick<InternalApiInputs['webhooks']['update'], 'active'>>().toEqualTypeOf<{ active?: boolean | undefined }>();
    type Discrepancy = InternalApiOutputs['stock']['verify'][number];
    expectTypeOf<Discrepancy>().toEqualTypeOf<{ tenantId: string; locationId: number; productId: number; check: StockCheck; recorded: string; expected: string; reservations?: string[]; lotNumber?: string }>();
    type Lot = InternalApiOutputs['lots']['list']['lots'][number];
    expectTypeOf<Pick<Lot, 'lotNumber' | 'expiryDate' | 'good' | 'available' | 'daysLeft' | 'sellable'>>().toEqualTypeOf<{
      lotNumber: string;
      expiryDate: string | null;
      good: string;
      available: string;
      daysLeft: number | null;
      sellable: boolean;
    }>();
    expectTypeOf<Pick<InternalApiInputs['stock']['recordOpening'], 'lotNumber' | 'expiryDate' | 'productionDate'>>().toEqualTypeOf<{ lotNumber?: string | undefined; expiryDate?: string | undefined; productionDate?: string | undefined }>();
  });
});
