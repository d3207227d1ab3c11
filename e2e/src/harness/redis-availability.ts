// Whether the Redis the rate-limit tests share is there: a PING over a plain socket, so the suite
// needs no Redis client of its own. Outside CI an unreachable Redis skips those tests with a printed
// reason; under CI=true it fails them (CI never skips a store test).
import { connect } from 'node:net';

export function testRedisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

function ping(url: string, timeoutMs: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname || '127.0.0.1', port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(/^\+PONG|^-NOAUTH/.test(data.toString('utf8'))));
  });
}

/**
 * `{ url }` when Redis answers, `{ skip: reason }` when it does not (outside CI); throws under CI.
 *
 * @example
 * const redis = await redisForTests();
 * describe.skipIf('skip' in redis)('rate limits across processes', ...);
 */
export async function redisForTests(): Promise<{ url: string } | { skip: string }> {
  const url = testRedisUrl();
  if (await ping(url, 2000)) return { url };
  const reason = `Redis at ${url} is unreachable (set REDIS_URL)`;
  if (process.env.CI === 'true') throw new Error(`${reason}; CI requires it`);
  console.warn(`[skip] Redis rate-limit tests skipped: ${reason}`);
  return { skip: reason };
}
