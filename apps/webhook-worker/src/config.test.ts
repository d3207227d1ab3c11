import { describe, expect, it } from 'vitest';
import { ConfigError, loadWebhookWorkerConfig } from './config.js';

const KEY = 'k'.repeat(64);

describe('webhook worker configuration', () => {
  it('has working defaults for everything but the credentials key', () => {
    expect(loadWebhookWorkerConfig({ CREDENTIALS_KEY: KEY })).toMatchObject({ pollMs: 100, timeoutMs: 10_000, concurrency: 16, batchSize: 50, leaseMs: 30_000, allowPrivateUrls: false, metrics: null, logLevel: 'info' });
    expect(() => loadWebhookWorkerConfig({})).toThrow(ConfigError);
    expect(() => loadWebhookWorkerConfig({})).toThrow(/invalid webhook worker configuration:\n {2}CREDENTIALS_KEY: is required/);
  });

  it('keeps deliveries to public https hosts unless WEBHOOK_ALLOW_PRIVATE_URLS is exactly true or false', () => {
    expect(loadWebhookWorkerConfig({ CREDENTIALS_KEY: KEY, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }).allowPrivateUrls).toBe(true);
    expect(loadWebhookWorkerConfig({ CREDENTIALS_KEY: KEY, WEBHOOK_ALLOW_PRIVATE_URLS: 'false' }).allowPrivateUrls).toBe(false);
    for (const value of ['1', 'yes', 'TRUE', 'on']) {
      expect(() => loadWebhookWorkerConfig({ CREDENTIALS_KEY: KEY, WEBHOOK_ALLOW_PRIVATE_URLS: value }), value).toThrow(/WEBHOOK_ALLOW_PRIVATE_URLS: must be one of true, false/);
    }
  });

  it('gives the worker a lease longer than its request timeout', () => {
    expect(loadWebhookWorkerConfig({ CREDENTIALS_KEY: KEY, WEBHOOK_LEASE_MS: '2000', WEBHOOK_TIMEOUT_MS: '5000' }).leaseMs).toBe(6000);
  });

  it('reads the database with its deadlines, and refuses an unknown scheme under DATABASE_URL', () => {
    expect(loadWebhookWorkerConfig({ CREDENTIALS_KEY: KEY, DATABASE_URL: 'postgres://db/pits', DB_STATEMENT_TIMEOUT_MS: '7000' }).database).toMatchObject({
      dialect: 'postgres',
      url: 'postgres://db/pits',
      deadlines: { connectTimeoutMs: 2000, statementTimeoutMs: 7000 },
    });
    expect(() => loadWebhookWorkerConfig({ CREDENTIALS_KEY: KEY, DATABASE_URL: 'mysql://db/pits' })).toThrow(/DATABASE_URL: DATABASE_URL scheme is not supported/);
  });

  it('serves metrics on an operator port of its own, off unless WEBHOOK_WORKER_METRICS_PORT is set', () => {
    expect(loadWebhookWorkerConfig({ CREDENTIALS_KEY: KEY, WEBHOOK_WORKER_METRICS_PORT: '9466', WEBHOOK_WORKER_METRICS_HOST: '10.1.2.3' }).metrics).toEqual({ host: '10.1.2.3', port: 9466 });
    expect(() => loadWebhookWorkerConfig({ CREDENTIALS_KEY: KEY, WEBHOOK_WORKER_METRICS_PORT: 'x' })).toThrow(/WEBHOOK_WORKER_METRICS_PORT: must be a whole number/);
  });
});
