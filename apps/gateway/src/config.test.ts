import { describe, expect, it } from 'vitest';
import { ConfigError, loadGatewayConfig } from './config.js';

const KEY = 'k'.repeat(64);

describe('gateway configuration', () => {
  it('has working defaults for everything but the credentials key', () => {
    const config = loadGatewayConfig({ CREDENTIALS_KEY: KEY });
    expect(config).toMatchObject({ host: '0.0.0.0', port: 4000, redisUrl: null, rateLimit: { windowMs: 60_000, tiers: { small: 1000, medium: 2000, large: 5000 }, operation: 200, anonymous: 300, storeTimeoutMs: 250, keyPrefix: 'rl:' } });
    expect(config.database.dialect).toBe('sqlite');
  });

  it('names every bad variable', () => {
    const attempt = () => loadGatewayConfig({ GATEWAY_PORT: 'eighty', REDIS_URL: 'http://x', LOG_LEVEL: 'loud' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/CREDENTIALS_KEY: is required/);
    expect(attempt).toThrow(/GATEWAY_PORT/);
    expect(attempt).toThrow(/REDIS_URL/);
    expect(attempt).toThrow(/LOG_LEVEL/);
    expect(() => loadGatewayConfig({ CREDENTIALS_KEY: KEY, DATABASE_URL: 'mysql://db/x' })).toThrow(/DATABASE_URL/);
  });

  it('takes the rate-limit store timeout from the environment, within bounds', () => {
    expect(loadGatewayConfig({ CREDENTIALS_KEY: KEY, RATE_LIMIT_STORE_TIMEOUT_MS: '40' }).rateLimit.storeTimeoutMs).toBe(40);
    expect(() => loadGatewayConfig({ CREDENTIALS_KEY: KEY, RATE_LIMIT_STORE_TIMEOUT_MS: '0' })).toThrow(/RATE_LIMIT_STORE_TIMEOUT_MS/);
  });

  it('takes the anonymous budget per address from the environment, within bounds', () => {
    expect(loadGatewayConfig({ CREDENTIALS_KEY: KEY, RATE_LIMIT_ANONYMOUS: '50' }).rateLimit.anonymous).toBe(50);
    expect(() => loadGatewayConfig({ CREDENTIALS_KEY: KEY, RATE_LIMIT_ANONYMOUS: '0' })).toThrow(/RATE_LIMIT_ANONYMOUS: must be from 1 to 1000000, got 0/);
    expect(() => loadGatewayConfig({ CREDENTIALS_KEY: KEY, RATE_LIMIT_ANONYMOUS: 'lots' })).toThrow(/RATE_LIMIT_ANONYMOUS/);
  });

  it('bounds how far the V8 old generation grows between full collections, 0 for V8\'s own', () => {
    expect(loadGatewayConfig({ CREDENTIALS_KEY: KEY }).heapGrowingPercent).toBe(20);
    expect(loadGatewayConfig({ CREDENTIALS_KEY: KEY, GATEWAY_HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
    expect(() => loadGatewayConfig({ CREDENTIALS_KEY: KEY, GATEWAY_HEAP_GROWING_PERCENT: '-1' })).toThrow(/GATEWAY_HEAP_GROWING_PERCENT/);
  });

  it('takes the Redis key prefix of the rate-limit counters from the environment, and refuses one with spaces or globs', () => {
    expect(loadGatewayConfig({ CREDENTIALS_KEY: KEY, RATE_LIMIT_KEY_PREFIX: 'staging:rl:' }).rateLimit.keyPrefix).toBe('staging:rl:');
    expect(() => loadGatewayConfig({ CREDENTIALS_KEY: KEY, RATE_LIMIT_KEY_PREFIX: 'a b' })).toThrow(/RATE_LIMIT_KEY_PREFIX: must be 1 to 64 letters/);
    expect(() => loadGatewayConfig({ CREDENTIALS_KEY: KEY, RATE_LIMIT_KEY_PREFIX: 'rl*' })).toThrow(/RATE_LIMIT_KEY_PREFIX/);
  });

  it('reads PostgreSQL and Redis URLs', () => {
    const config = loadGatewayConfig({ CREDENTIALS_KEY: KEY, DATABASE_URL: 'postgres://u@db/pits', REDIS_URL: 'redis://cache:6379' });
    expect(config.database).toEqual({ dialect: 'postgres', url: 'postgres://u@db/pits', poolSize: 10, deadlines: { connectTimeoutMs: 2000, statementTimeoutMs: 5000 } });
    expect(config.redisUrl).toBe('redis://cache:6379');
  });

  it('says what was wrong with a value, and never takes an empty value for the default', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadGatewayConfig({ CREDENTIALS_KEY: KEY, ...env });
      } catch (error) {
        return (error as ConfigError).message;
      }
      throw new Error('expected a ConfigError');
    };
    expect(problems({ GATEWAY_PORT: 'abc' })).toContain('GATEWAY_PORT: must be a whole number from 0 to 65535, got "abc"');
    expect(problems({ RATE_LIMIT_SMALL: 'abc' })).toContain('RATE_LIMIT_SMALL: must be a whole number from 1 to 1000000, got "abc"');
    expect(problems({ GATEWAY_PORT: '' })).toContain('GATEWAY_PORT: is set but empty');
    expect(problems({ DB_STATEMENT_TIMEOUT_MS: '10' })).toContain('DB_STATEMENT_TIMEOUT_MS: must be from 100 to 600000, got 10');
    expect(problems({ HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' })).toContain('HTTP_REQUEST_TIMEOUT_MS: must be at least HTTP_HEADERS_TIMEOUT_MS');
    expect(problems({ REQUEST_DEADLINE_MS: '60000', IDEMPOTENCY_CLAIM_LEASE_MS: '30000' })).toContain('IDEMPOTENCY_CLAIM_LEASE_MS: must be longer than REQUEST_DEADLINE_MS');
  });

  it('reads the deadlines, server limits and retention settings', () => {
    const config = loadGatewayConfig({
      CREDENTIALS_KEY: KEY,
      DATABASE_URL: 'postgres://u@db/pits',
      DB_CONNECT_TIMEOUT_MS: '500',
      DB_STATEMENT_TIMEOUT_MS: '1500',
      DB_POOL_SIZE: '4',
      REQUEST_DEADLINE_MS: '3000',
      READY_TIMEOUT_MS: '300',
      HTTP_HEADERS_TIMEOUT_MS: '5000',
      HTTP_REQUEST_TIMEOUT_MS: '9000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
      HTTP_MAX_HEADER_BYTES: '8192',
      IDEMPOTENCY_CLAIM_LEASE_MS: '4000',
      WEBHOOK_RETENTION_MS: '86400000',
      RETENTION_INTERVAL_MS: '60000',
      RETENTION_BATCH_SIZE: '100',
    });
    expect(config).toMatchObject({
      database: { poolSize: 4, deadlines: { connectTimeoutMs: 500, statementTimeoutMs: 1500 } },
      requestDeadlineMs: 3000,
      readyTimeoutMs: 300,
      http: { headersTimeoutMs: 5000, requestTimeoutMs: 9000, keepAliveTimeoutMs: 1000, maxHeaderBytes: 8192 },
      idempotencyClaimLeaseMs: 4000,
      retention: { deliveryRetentionMs: 86_400_000, intervalMs: 60_000, batchSize: 100 },
    });
  });

  it('reads the expiry sweep settings, within bounds that keep a run within 60 s of any expiry', () => {
    expect(loadGatewayConfig({ CREDENTIALS_KEY: KEY }).reservationSweep).toEqual({ intervalMs: 15_000, batchSize: 100 });
    expect(loadGatewayConfig({ CREDENTIALS_KEY: KEY, RESERVATION_SWEEP_INTERVAL_MS: '5000', RESERVATION_SWEEP_BATCH: '1000' }).reservationSweep).toEqual({ intervalMs: 5000, batchSize: 1000 });
    const problem = (env: Record<string, string>) => () => loadGatewayConfig({ CREDENTIALS_KEY: KEY, ...env });
    expect(problem({ RESERVATION_SWEEP_INTERVAL_MS: '999' })).toThrow('RESERVATION_SWEEP_INTERVAL_MS: must be from 1000 to 50000, got 999');
    expect(problem({ RESERVATION_SWEEP_INTERVAL_MS: '60000' })).toThrow(/RESERVATION_SWEEP_INTERVAL_MS: must be from 1000 to 50000, got 60000/);
    expect(problem({ RESERVATION_SWEEP_INTERVAL_MS: '15s' })).toThrow(/RESERVATION_SWEEP_INTERVAL_MS/);
    expect(problem({ RESERVATION_SWEEP_BATCH: '0' })).toThrow(/RESERVATION_SWEEP_BATCH: must be from 1 to 1000, got 0/);
    expect(problem({ RESERVATION_SWEEP_BATCH: '1001' })).toThrow(/RESERVATION_SWEEP_BATCH/);
    expect(problem({ RESERVATION_SWEEP_BATCH: '' })).toThrow('RESERVATION_SWEEP_BATCH: is set but empty');
  });

  it('keeps webhooks to public https hosts unless WEBHOOK_ALLOW_PRIVATE_URLS is exactly true or false', () => {
    expect(loadGatewayConfig({ CREDENTIALS_KEY: KEY }).webhookAllowPrivateUrls).toBe(false);
    expect(loadGatewayConfig({ CREDENTIALS_KEY: KEY, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }).webhookAllowPrivateUrls).toBe(true);
    for (const value of ['1', 'yes', 'TRUE', 'on']) {
      expect(() => loadGatewayConfig({ CREDENTIALS_KEY: KEY, WEBHOOK_ALLOW_PRIVATE_URLS: value }), value).toThrow(/WEBHOOK_ALLOW_PRIVATE_URLS: must be one of true, false/);
    }
  });

  it('serves metrics on an operator port of their own, off unless GATEWAY_METRICS_PORT is set', () => {
    const base = { CREDENTIALS_KEY: 'k'.repeat(64) };
    expect(loadGatewayConfig(base).metrics).toBeNull();
    expect(loadGatewayConfig({ ...base, GATEWAY_METRICS_PORT: '9464' }).metrics).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(loadGatewayConfig({ ...base, GATEWAY_METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(() => loadGatewayConfig({ ...base, GATEWAY_PORT: '8080', GATEWAY_METRICS_PORT: '8080' })).toThrow(/GATEWAY_METRICS_PORT: must differ from GATEWAY_PORT \(8080\)/);
  });
});
