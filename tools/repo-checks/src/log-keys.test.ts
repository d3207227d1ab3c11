// Every log line of every process uses snake_case keys: the keys written in logger calls are checked here.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLogKeys, logKeyProblems } from './log-keys.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('the repository', () => {
  it('writes only snake_case keys in its log calls', () => {
    expect(checkLogKeys(ROOT)).toEqual([]);
  }, 30_000);
});

describe('logKeyProblems', () => {
  it('names camelCase keys of logger calls, shorthand and quoted ones included, and nothing else', () => {
    const text = [
      "logger.info({ workerId, allow_private_urls: true }, 'started');",
      "this.logger.warn({ 'retryInMs': 5, reason }, 'later');",
      'const child = log.child({ requestId: id });',
      "deps.auditLogger.error({ err, ...rest, worker_id: 1 }, 'x');",
      "console.info({ notALogger: 1 });",
      "list.push({ camelCase: 1 });",
      "logger.info('no fields', { ignoredHere: 1 });",
    ].join('\n');
    expect(logKeyProblems('x.ts', text)).toEqual([
      { file: 'x.ts', line: 1, key: 'workerId' },
      { file: 'x.ts', line: 2, key: 'retryInMs' },
      { file: 'x.ts', line: 3, key: 'requestId' },
    ]);
  });
});
