// stop() must wait for every process the shell started, not only the shell: `npm start` under
// bash exits before the servers it started have closed their ports, and the newcomer test checks
// those ports right after stop().
import { describe, expect, it } from 'vitest';
import { groupAlive, startShell } from './shell-session.js';

/**
 * A node process that takes `delayMs` to exit after SIGTERM (or ignores it), started in the
 * background of a shell that then sleeps. Both end by themselves within 30 s whatever happens to
 * the test: a child that ignores SIGTERM must not outlive a run that failed before stop().
 */
function lingeringChild(onTerm: 'exit-later' | 'ignore', delayMs = 0): string {
  const handler = onTerm === 'ignore' ? '() => {}' : `() => setTimeout(() => process.exit(0), ${delayMs})`;
  return `node -e 'process.on("SIGTERM", ${handler}); console.log("child up"); setTimeout(() => process.exit(0), 30000)' & sleep 30`;
}

describe('startShell().stop()', () => {
  it('resolves only after a child that outlives the shell has exited, without SIGKILL', async () => {
    const session = startShell(lingeringChild('exit-later', 800), { cwd: process.cwd(), env: process.env });
    try {
      await session.waitFor(/child up/, 10_000);
      const started = Date.now();
      const { forced } = await session.stop(10_000);
      expect(forced).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(700);
      expect(groupAlive(session.pid)).toBe(false);
    } finally {
      await session.stop(500);
    }
  });

  it('kills a child that ignores SIGTERM after the grace period and says so', async () => {
    const session = startShell(lingeringChild('ignore'), { cwd: process.cwd(), env: process.env });
    try {
      await session.waitFor(/child up/, 10_000);
      const { forced } = await session.stop(500);
      expect(forced).toBe(true);
      expect(groupAlive(session.pid)).toBe(false);
    } finally {
      await session.stop(500);
    }
  });

  it('groupAlive is false for a group that never existed', () => {
    expect(groupAlive(2 ** 22 + 12_345)).toBe(false);
  });
});
