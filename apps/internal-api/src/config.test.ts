import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadInternalApiConfig } from './config.js';

const VALID = {
  INTERNAL_API_TOKEN: 'a-long-enough-internal-token-123',
  CREDENTIALS_KEY: 'ab'.repeat(32),
};

function problemOf(env: Record<string, string | undefined>): ConfigError {
  try {
    loadInternalApiConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadInternalApiConfig', () => {
  it('applies the defaults', () => {
    expect(loadInternalApiConfig(VALID)).toEqual({
      host: '127.0.0.1',
      port: 4001,
      database: { dialect: 'sqlite', location: resolve(process.cwd(), './data/pits.sqlite'), poolSize: 10, deadlines: { connectTimeoutMs: 2000, statementTimeoutMs: 5000 } },
      serviceToken: VALID.INTERNAL_API_TOKEN,
      credentialsKey: VALID.CREDENTIALS_KEY,
      logLevel: 'info',
      shutdownTimeoutMs: 10_000,
      http: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5000, maxHeaderBytes: 16_384 },
      requestDeadlineMs: 10_000,
      readyTimeoutMs: 1000,
      webhookAllowPrivateUrls: false,
      metrics: null,
    });
  });

  it('allows private webhook URLs only when WEBHOOK_ALLOW_PRIVATE_URLS is exactly true', () => {
    expect(loadInternalApiConfig({ ...VALID, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }).webhookAllowPrivateUrls).toBe(true);
    expect(loadInternalApiConfig({ ...VALID, WEBHOOK_ALLOW_PRIVATE_URLS: 'false' }).webhookAllowPrivateUrls).toBe(false);
    for (const value of ['1', 'yes', 'True']) {
      expect(problemOf({ ...VALID, WEBHOOK_ALLOW_PRIVATE_URLS: value }).problems).toEqual([{ variable: 'WEBHOOK_ALLOW_PRIVATE_URLS', problem: `must be one of true, false, got "${value}"` }]);
    }
  });

  it('reads every variable', () => {
    const config = loadInternalApiConfig({
      ...VALID,
      INTERNAL_API_HOST: '0.0.0.0',
      INTERNAL_API_PORT: '5001',
      DATABASE_URL: 'postgres://pits@db:5432/pits',
      LOG_LEVEL: 'warn',
      SHUTDOWN_TIMEOUT_MS: '2500',
      CREDENTIALS_KEY: 'a passphrase that is at least thirty-two characters',
    });
    expect(config).toMatchObject({ host: '0.0.0.0', port: 5001, database: { dialect: 'postgres', url: 'postgres://pits@db:5432/pits' }, logLevel: 'warn', shutdownTimeoutMs: 2500 });
  });

  it('a missing INTERNAL_API_TOKEN names that variable', () => {
    const error = problemOf({ CREDENTIALS_KEY: VALID.CREDENTIALS_KEY });
    expect(error.message).toContain('INTERNAL_API_TOKEN: is required');
    expect(error.problems).toEqual([{ variable: 'INTERNAL_API_TOKEN', problem: 'is required' }]);
    // An empty value is a mistake to point out, not a missing value to default.
    expect(problemOf({ ...VALID, INTERNAL_API_TOKEN: '' }).message).toContain('INTERNAL_API_TOKEN: is set but empty');
  });

  it('a short token, a weak credentials key, a bad port, level or database URL are each named', () => {
    expect(problemOf({ ...VALID, INTERNAL_API_TOKEN: 'short' }).message).toContain('INTERNAL_API_TOKEN: must be at least 24 characters');
    expect(problemOf({ ...VALID, CREDENTIALS_KEY: 'too-short' }).message).toMatch(/CREDENTIALS_KEY: the credentials key must be 32 bytes/);
    expect(problemOf({ INTERNAL_API_TOKEN: VALID.INTERNAL_API_TOKEN }).message).toContain('CREDENTIALS_KEY: is required');
    expect(problemOf({ ...VALID, INTERNAL_API_PORT: 'eighty' }).message).toContain('INTERNAL_API_PORT');
    expect(problemOf({ ...VALID, INTERNAL_API_PORT: '70000' }).message).toContain('INTERNAL_API_PORT');
    expect(problemOf({ ...VALID, LOG_LEVEL: 'loud' }).message).toContain('LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"');
    expect(problemOf({ ...VALID, INTERNAL_API_PORT: 'eighty' }).message).toContain('INTERNAL_API_PORT: must be a whole number from 0 to 65535, got "eighty"');
    expect(problemOf({ ...VALID, DATABASE_URL: 'mysql://x/y' }).message).toContain('DATABASE_URL: DATABASE_URL scheme is not supported');
  });

  it('names every bad variable at once', () => {
    const error = problemOf({ INTERNAL_API_PORT: '-1', LOG_LEVEL: 'x', CREDENTIALS_KEY: 'short' });
    expect(error.problems.map((p) => p.variable).sort()).toEqual(['CREDENTIALS_KEY', 'INTERNAL_API_PORT', 'INTERNAL_API_TOKEN', 'LOG_LEVEL']);
  });

  it("never shares the partners' port", () => {
    expect(problemOf({ ...VALID, INTERNAL_API_PORT: '4000' }).message).toContain("INTERNAL_API_PORT: must differ from the partners' port (GATEWAY_PORT 4000)");
    expect(problemOf({ ...VALID, INTERNAL_API_PORT: '8080', GATEWAY_PORT: '8080' }).message).toContain('INTERNAL_API_PORT');
    expect(loadInternalApiConfig({ ...VALID, INTERNAL_API_PORT: '0', GATEWAY_PORT: '0' }).port).toBe(0);
  });

  it('serves metrics on an operator port of its own, off unless INTERNAL_API_METRICS_PORT is set, never on the API or partner port', () => {
    const base = { INTERNAL_API_TOKEN: 'x'.repeat(32), CREDENTIALS_KEY: 'f'.repeat(64) };
    expect(loadInternalApiConfig(base).metrics).toBeNull();
    expect(loadInternalApiConfig({ ...base, INTERNAL_API_METRICS_PORT: '9465', METRICS_HOST: '::1' }).metrics).toEqual({ host: '::1', port: 9465 });
    expect(() => loadInternalApiConfig({ ...base, INTERNAL_API_METRICS_PORT: '4001' })).toThrow(/INTERNAL_API_METRICS_PORT: must differ from INTERNAL_API_PORT \(4001\)/);
    expect(() => loadInternalApiConfig({ ...base, INTERNAL_API_METRICS_PORT: '4000' })).toThrow(/INTERNAL_API_METRICS_PORT: must differ from GATEWAY_PORT \(4000\)/);
  });
});
