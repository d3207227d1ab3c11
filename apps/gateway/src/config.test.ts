import { describe, expect, it } from 'vitest';
import { ConfigError, loadGatewayConfig, loadWebhookWorkerConfig } from './config.js';

const KEY = 'k'.repeat(64);

describe('gateway configuration', () => {
  it('has working defaults for everything but the credentials key', () => {
    const config = loadGatewayConfig({ CREDENTIALS_KEY: KEY });
    expect(config).toMatchObject({ host: '0.0.0.0', port: 4000, redisUrl: null, keyCacheTtlMs: 2000, rateLimit: { windowMs: 60_000, tiers: { small: 1000, medium: 2000, large: 5000 }, operation: 200, storeTimeoutMs: 250 } });
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

  it('reads PostgreSQL and Redis URLs', () => {
    const config = loadGatewayConfig({ CREDENTIALS_KEY: KEY, DATABASE_URL: 'postgres://u@db/pits', REDIS_URL: 'redis://cache:6379' });
    expect(config.database).toEqual({ dialect: 'postgres', url: 'postgres://u@db/pits' });
    expect(config.redisUrl).toBe('redis://cache:6379');
  });

  it('gives the webhook worker a lease longer than its request timeout', () => {
    expect(loadWebhookWorkerConfig({ CREDENTIALS_KEY: KEY })).toMatchObject({ pollMs: 100, timeoutMs: 10_000, leaseMs: 30_000 });
    expect(loadWebhookWorkerConfig({ CREDENTIALS_KEY: KEY, WEBHOOK_LEASE_MS: '2000', WEBHOOK_TIMEOUT_MS: '5000' }).leaseMs).toBe(6000);
  });
});
