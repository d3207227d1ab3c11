import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError, ERROR_KINDS, domainError } from '@pits/domain';
import { createCredentialCipher } from '@pits/persistence';
import { testDialects } from '@pits/persistence/testing';
import { pino } from 'pino';
import { appRouter, createInternalCaller } from './router.js';
import { procedurePaths } from './testing/procedure-paths.js';
import { TEST_CREDENTIALS_KEY, TEST_NOW, openTestApi, refusal, silentLogger, testHostResolver } from './testing/test-api.js';
import { INTERNAL_ERROR_MESSAGE, type InternalApiContext, TRPC_CODE_BY_KIND, createCallerFactory, protectedProcedure, router } from './trpc.js';

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

// A router that refuses on demand, to drive the error mapping with every kind and with surprises.
const probeRouter = router({
  refuse: protectedProcedure
    .input(z.object({ kind: z.enum(ERROR_KINDS) }))
    .query(({ input }) => {
      throw new AppError(domainError(input.kind, `refused with ${input.kind}`, { field: 'items[2].quantity', issues: [{ field: 'items[2].quantity', issue: 'a' }, { field: 'reason', issue: 'b' }] }));
    }),
  explode: protectedProcedure.query(() => {
    throw new Error('relation "secret_table" does not exist at /srv/app/db.ts:42');
  }),
});

function probeContext(overrides: Partial<InternalApiContext> = {}): InternalApiContext {
  return {
    database: undefined as never,
    cipher: createCredentialCipher(TEST_CREDENTIALS_KEY),
    now: () => TEST_NOW,
    logger: silentLogger(),
    authorized: true,
    webhookUrls: { policy: { allowPrivate: false }, resolve: testHostResolver },
    ...overrides,
  };
}

describe('error mapping', () => {
  it('maps each domain kind through the one table, keeping kind, field and issues', async () => {
    const caller = createCallerFactory(probeRouter)(probeContext());
    for (const kind of ERROR_KINDS) {
      const r = await refusal(caller.refuse({ kind }));
      expect(r.code).toBe(TRPC_CODE_BY_KIND[kind]);
      if (kind === 'INTERNAL_ERROR') {
        expect(r).toMatchObject({ kind: 'INTERNAL_ERROR', message: INTERNAL_ERROR_MESSAGE, field: '', issues: [] });
      } else {
        expect(r).toMatchObject({ kind, message: `refused with ${kind}`, field: 'items[2].quantity' });
        expect(r.issues.map((i) => i.field)).toEqual(['items[2].quantity', 'reason']);
      }
    }
  });

  it('uses the agreed codes for the kinds the internal API raises', () => {
    expect(TRPC_CODE_BY_KIND).toMatchObject({
      NOT_FOUND: 'NOT_FOUND',
      VALIDATION_ERROR: 'BAD_REQUEST',
      INVALID_REQUEST: 'BAD_REQUEST',
      INVALID_STATE: 'CONFLICT',
      INSUFFICIENT_STOCK: 'CONFLICT',
      FORBIDDEN: 'FORBIDDEN',
      UNAUTHORIZED: 'UNAUTHORIZED',
      INTERNAL_ERROR: 'INTERNAL_SERVER_ERROR',
    });
  });

  it('an unexpected error is INTERNAL_SERVER_ERROR with a generic message, and logged with its detail', async () => {
    const { logger, lines } = capturingLogger();
    const r = await refusal(createCallerFactory(probeRouter)(probeContext({ logger })).explode());
    expect(r).toEqual({ code: 'INTERNAL_SERVER_ERROR', message: INTERNAL_ERROR_MESSAGE, kind: 'INTERNAL_ERROR', field: '', issues: [] });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'unexpected error', path: 'explode' });
    expect(JSON.stringify(lines[0])).toContain('secret_table');
  });

  it('refuses an input nested deeper than 32 levels as BAD_REQUEST kind INVALID_REQUEST, 200,000 levels included', async () => {
    const caller = createCallerFactory(probeRouter)(probeContext());
    const nested = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);
    // The input object is one level: 31 more inside it is the most allowed.
    expect(await refusal(caller.refuse({ kind: 'NOT_FOUND', extra: nested(31) } as never))).toMatchObject({ kind: 'NOT_FOUND' });
    for (const levels of [32, 200_000]) {
      const r = await refusal(caller.refuse({ kind: 'NOT_FOUND', extra: nested(levels) } as never));
      expect(r).toMatchObject({ code: 'BAD_REQUEST', kind: 'INVALID_REQUEST', field: '', message: 'the input must not be nested more than 32 levels deep' });
    }
  });

  it('the token is checked before the input is parsed', async () => {
    const caller = createCallerFactory(probeRouter)(probeContext({ authorized: false }));
    expect(await refusal(caller.refuse({ kind: 'nonsense' as 'NOT_FOUND' }))).toMatchObject({ code: 'UNAUTHORIZED', kind: 'UNAUTHORIZED', field: 'Authorization' });
  });
});

const dialects = await testDialects();

describe.each(dialects)('[%s] the whole router', (dialect) => {
  const procedures = procedurePaths(appRouter);

  it('serves every resource the issue asks for', () => {
    expect(procedures.sort()).toEqual(
      [
        'apiKeys.create', 'apiKeys.list', 'apiKeys.revoke', 'apiKeys.rotate',
        'inbound.byId', 'inbound.cancel', 'inbound.create', 'inbound.list',
        'installations.grant', 'installations.list', 'installations.withdraw',
        'locations.create', 'locations.list', 'locations.update',
        'logisticPreferences.create', 'logisticPreferences.list', 'logisticPreferences.update',
        'lots.list',
        'partners.byId', 'partners.create', 'partners.list', 'partners.setTier',
        'products.byId', 'products.bySku', 'products.create', 'products.list', 'products.update',
        'reservations.get', 'reservations.list', 'reservations.release',
        'stock.checkLedger', 'stock.ledger', 'stock.levels', 'stock.recordOpening', 'stock.verify',
        'tenants.byId', 'tenants.create', 'tenants.list',
        'transfers.byNumber', 'transfers.receive', 'transfers.ship',
        'webhooks.create', 'webhooks.deliveries', 'webhooks.delete', 'webhooks.list', 'webhooks.redeliver', 'webhooks.update',
      ].sort(),
    );
  });

  it('every procedure is UNAUTHORIZED without the token, whatever the input', async () => {
    const api = await openTestApi(dialect);
    try {
      for (const path of procedures) {
        const [resource, name] = path.split('.') as [string, string];
        const call = (api.anonymous as any)[resource][name]({ garbage: true }) as Promise<unknown>;
        expect(await refusal(call), path).toMatchObject({ code: 'UNAUTHORIZED', kind: 'UNAUTHORIZED' });
      }
    } finally {
      await api.t.cleanup();
    }
  });

  it('a database failure reaches the caller as INTERNAL_SERVER_ERROR without driver text', async () => {
    const api = await openTestApi(dialect);
    const { logger, lines } = capturingLogger();
    await api.t.cleanup();
    const caller = createInternalCaller(api.context({ logger }));
    const r = await refusal(caller.partners.list());
    expect(r).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: INTERNAL_ERROR_MESSAGE, kind: 'INTERNAL_ERROR' });
    expect(lines.some((l) => l.msg === 'unexpected error' && l.path === 'partners.list')).toBe(true);
  });
});
