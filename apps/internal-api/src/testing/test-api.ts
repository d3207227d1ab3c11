// Test fixtures of the internal API: a migrated database of a dialect, callers with and without
// the service token, and a way to read a refusal as clients see it.
import { TRPCError, type TRPC_ERROR_CODE_KEY } from '@trpc/server';
import type { HostResolver } from '@pits/domain';
import { type CredentialCipher, createCredentialCipher } from '@pits/persistence';
import { type TestDatabase, openTestDatabase } from '@pits/persistence/testing';
import type { Dialect } from '@pits/persistence';
import { type Logger, pino } from 'pino';
import { createInternalCaller } from '../router.js';
import { type InternalApiContext, type RefusalData, refusalOf } from '../trpc.js';

export const TEST_SERVICE_TOKEN = 'test-internal-service-token-0123456789';
export const TEST_CREDENTIALS_KEY = '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0';
export const TEST_NOW = new Date('2026-11-22T08:00:00.000Z');

export type InternalCaller = ReturnType<typeof createInternalCaller>;

/**
 * Name resolution of the tests, never real DNS: every `*.example` name is one public address,
 * `evil.test` is loopback and `intranet.test` private; anything else does not resolve.
 *
 * @example await testHostResolver('hooks.partner.example') // ['93.184.215.14']
 */
export const testHostResolver: HostResolver = async (name) => {
  if (name.endsWith('.example')) return ['93.184.215.14'];
  if (name === 'evil.test') return ['127.0.0.1'];
  if (name === 'intranet.test') return ['93.184.215.14', '10.1.2.3'];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
};

export interface TestApi {
  t: TestDatabase;
  cipher: CredentialCipher;
  context(overrides?: Partial<InternalApiContext>): InternalApiContext;
  /** A caller that presented the service token. */
  caller: InternalCaller;
  /** A caller without (or with a wrong) token. */
  anonymous: InternalCaller;
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

export async function openTestApi(dialect: Dialect, options: { now?: () => Date } = {}): Promise<TestApi> {
  const t = await openTestDatabase(dialect);
  const cipher = createCredentialCipher(TEST_CREDENTIALS_KEY);
  const context = (overrides: Partial<InternalApiContext> = {}): InternalApiContext => ({
    database: t.database,
    cipher,
    now: options.now ?? (() => TEST_NOW),
    logger: silentLogger(),
    authorized: true,
    webhookUrls: { policy: { allowPrivate: false }, resolve: testHostResolver },
    ...overrides,
  });
  return { t, cipher, context, caller: createInternalCaller(context()), anonymous: createInternalCaller(context({ authorized: false })) };
}

/** The refusal a call ends with, as a client reads it: tRPC code, message and `error.data` fields. */
export async function refusal(call: Promise<unknown>): Promise<{ code: TRPC_ERROR_CODE_KEY; message: string } & RefusalData> {
  try {
    await call;
  } catch (error) {
    if (error instanceof TRPCError) return { code: error.code, message: error.message, ...refusalOf(error) };
    throw error;
  }
  throw new Error('expected the call to be refused');
}
