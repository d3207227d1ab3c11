// The process logger: every line has the base keys of the one log schema, hostname included.
import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BASE_LOG_FIELDS, createProcessLogger } from './log-fields.js';

describe('createProcessLogger', () => {
  it('writes app, pid, hostname, time, level and msg on every line', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
        done();
      },
    });
    const logger = createProcessLogger('webhook-worker', 'info', sink);
    logger.info({ worker_id: 'w-1' }, 'webhook worker started');
    logger.child({ request_id: 'r-1' }).warn('slow');
    logger.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(2);
    for (const text of lines) {
      const line = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(line).slice(0, BASE_LOG_FIELDS.length - 1)).toEqual(BASE_LOG_FIELDS.filter((f) => f !== 'msg'));
      expect(line).toMatchObject({ app: 'webhook-worker', pid: process.pid, hostname: hostname(), level: expect.any(Number) as number, time: expect.any(Number) as number });
      expect(typeof line.msg).toBe('string');
    }
  });
});
