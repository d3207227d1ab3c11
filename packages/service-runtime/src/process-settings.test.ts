import { describe, expect, it } from 'vitest';
import { readDatabaseConfig, readMetricsEndpoint, readServiceSettings } from './process-settings.js';
import { ConfigError, type Env, SettingsReader } from './settings.js';

function endpoint(env: Env, others: Record<string, number> = {}) {
  const read = new SettingsReader(env);
  const found = readMetricsEndpoint(read, 'GATEWAY', others);
  read.done('gateway');
  return found;
}

describe('readMetricsEndpoint', () => {
  it('is off while the port is unset, whatever the host says', () => {
    expect(endpoint({})).toBeNull();
    expect(endpoint({ METRICS_HOST: '0.0.0.0' })).toBeNull();
  });

  it('binds to 127.0.0.1 unless METRICS_HOST or the app’s own host says otherwise (the app’s own wins)', () => {
    expect(endpoint({ GATEWAY_METRICS_PORT: '9464' })).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(endpoint({ GATEWAY_METRICS_PORT: '0', METRICS_HOST: '10.0.0.5' })).toEqual({ host: '10.0.0.5', port: 0 });
    expect(endpoint({ GATEWAY_METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0', GATEWAY_METRICS_HOST: '[::1]' })).toEqual({ host: '::1', port: 9464 });
    expect(endpoint({ GATEWAY_METRICS_PORT: '9464', GATEWAY_METRICS_HOST: 'metrics.internal' })).toEqual({ host: 'metrics.internal', port: 9464 });
  });

  it.each([
    [{ GATEWAY_METRICS_PORT: 'abc' }, /GATEWAY_METRICS_PORT: must be a whole number from 0 to 65535, got "abc"/],
    [{ GATEWAY_METRICS_PORT: '70000' }, /GATEWAY_METRICS_PORT: must be from 0 to 65535, got 70000/],
    [{ GATEWAY_METRICS_PORT: ' ' }, /GATEWAY_METRICS_PORT: is set but empty/],
    [{ GATEWAY_METRICS_PORT: '9464', METRICS_HOST: 'http://x' }, /METRICS_HOST: must be an IP address or a host name, e.g. 127.0.0.1, got "http:\/\/x"/],
    [{ GATEWAY_METRICS_PORT: '9464', GATEWAY_METRICS_HOST: 'a b' }, /GATEWAY_METRICS_HOST: must be an IP address or a host name/],
    [{ GATEWAY_METRICS_PORT: '4000' }, /GATEWAY_METRICS_PORT: must differ from GATEWAY_PORT \(4000\)/],
  ] as [Env, RegExp][])('refuses %o', (env, message) => {
    expect(() => endpoint(env, { GATEWAY_PORT: 4000 })).toThrow(ConfigError);
    expect(() => endpoint(env, { GATEWAY_PORT: 4000 })).toThrow(message);
  });

  it('lets 0 (a free port, tests) sit beside a partner port of 0', () => {
    expect(endpoint({ GATEWAY_METRICS_PORT: '0' }, { GATEWAY_PORT: 0 })).toEqual({ host: '127.0.0.1', port: 0 });
  });
});

describe('readDatabaseConfig', () => {
  const format = {
    parse(url: string | undefined, cwd: string) {
      if (url === undefined) return { location: `${cwd}/default.db` };
      if (url.startsWith('bad:')) throw new Error('DATABASE_URL scheme is not supported');
      return { location: url };
    },
    defaultDeadlines: { connectTimeoutMs: 2000, statementTimeoutMs: 5000 },
  };

  it('reads DATABASE_URL through the format it is given, with the DB_* deadlines and pool size', () => {
    const read = new SettingsReader({ DATABASE_URL: '/srv/pits.db', DB_STATEMENT_TIMEOUT_MS: '7000', DB_POOL_SIZE: '3' });
    expect(readDatabaseConfig(read, format, '/cwd')).toEqual({ location: '/srv/pits.db', poolSize: 3, deadlines: { connectTimeoutMs: 2000, statementTimeoutMs: 7000 } });
    read.done('test');
    expect(readDatabaseConfig(new SettingsReader({}), format, '/cwd')).toMatchObject({ location: '/cwd/default.db', poolSize: 10 });
  });

  it('reports the format’s refusal under DATABASE_URL, beside the other problems', () => {
    const read = new SettingsReader({ DATABASE_URL: 'bad://x', DB_POOL_SIZE: '0' });
    readDatabaseConfig(read, format, '/cwd');
    expect(() => read.done('test')).toThrow(/DB_POOL_SIZE: must be from 1 to 500, got 0\n {2}DATABASE_URL: DATABASE_URL scheme is not supported/);
  });
});

describe('readServiceSettings', () => {
  const format = { parse: (url: string | undefined) => ({ url: url ?? 'default' }), defaultDeadlines: { connectTimeoutMs: 2000, statementTimeoutMs: 5000 } };

  it('reads what both HTTP services share, with their defaults', () => {
    const read = new SettingsReader({});
    expect(readServiceSettings(read, format)).toEqual({
      database: { url: 'default', poolSize: 10, deadlines: { connectTimeoutMs: 2000, statementTimeoutMs: 5000 } },
      logLevel: 'info',
      shutdownTimeoutMs: 10_000,
      http: expect.objectContaining({ headersTimeoutMs: expect.any(Number) }) as unknown,
      requestDeadlineMs: 10_000,
      readyTimeoutMs: 1000,
      webhookAllowPrivateUrls: false,
    });
    read.done('test');
  });

  it('reports each bad variable under its name', () => {
    const read = new SettingsReader({ SHUTDOWN_TIMEOUT_MS: '-1', REQUEST_DEADLINE_MS: '99', READY_TIMEOUT_MS: '49', WEBHOOK_ALLOW_PRIVATE_URLS: 'yes', LOG_LEVEL: 'loud' });
    readServiceSettings(read, format);
    const variables = (() => {
      try {
        read.done('test');
      } catch (error) {
        return (error as ConfigError).problems.map((p) => p.variable).sort();
      }
      return [];
    })();
    expect(variables).toEqual(['LOG_LEVEL', 'READY_TIMEOUT_MS', 'REQUEST_DEADLINE_MS', 'SHUTDOWN_TIMEOUT_MS', 'WEBHOOK_ALLOW_PRIVATE_URLS']);
  });
});
