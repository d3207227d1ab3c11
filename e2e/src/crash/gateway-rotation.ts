// The gateway the crash suite's clients talk to, and its replacement after a crash: kill -9 the
// running process, start a new one on the same database, and hand the new URL to every client
// that asks from then on. A client asking while the replacement starts waits for it.
import { expect } from 'vitest';
import type { ChildService } from '../harness/child-service.js';
import { liveContract } from '../harness/openapi-contract.js';

export interface GatewayRotation {
  /** The gateway to send to now; waits while a replacement is starting. */
  current(): Promise<ChildService>;
  /**
   * Kills the running gateway with `signal` (SIGKILL: no shutdown hook, no graceful close, open
   * requests die with it), starts the next one and resolves with it.
   */
  replace(signal?: NodeJS.Signals): Promise<ChildService>;
  /** True once `pid` was chosen to be killed (requests to it may go unanswered). */
  wasKilled(pid: number): boolean;
  /** How many gateways were killed so far. */
  kills(): number;
  /** Epoch milliseconds of the last kill, 0 before any. */
  lastKillAt(): number;
  /** Every gateway so far, the killed ones first. */
  all(): ChildService[];
}

/**
 * The contract of each new gateway is loaded before any client gets its URL, so a response that
 * arrives just before that gateway is killed can still be checked against its /openapi.json.
 *
 * @example
 * const rotation = await gatewayRotation(stack.gateway, () => stack.startGateway({ env }));
 * await rotation.replace('SIGKILL');
 */
export async function gatewayRotation(first: ChildService, startNext: () => Promise<ChildService>): Promise<GatewayRotation> {
  await liveContract(first.url);
  const started: ChildService[] = [first];
  const killed = new Set<number>();
  let running = first;
  let current: Promise<ChildService> = Promise.resolve(first);
  let lastKill = 0;

  return {
    current: () => current,
    async replace(signal: NodeJS.Signals = 'SIGKILL') {
      // Callers that ask from now on wait for the replacement.
      const victim = running;
      const replacement = (async () => {
        killed.add(victim.pid);
        lastKill = Date.now();
        const exit = await victim.kill(signal);
        expect(exit.signal, `${victim.name} ${victim.pid} died of the ${signal} it was sent`).toBe(signal);
        const next = await startNext();
        started.push(next);
        await liveContract(next.url);
        running = next;
        return next;
      })();
      current = replacement;
      return replacement;
    },
    wasKilled: (pid) => killed.has(pid),
    kills: () => killed.size,
    lastKillAt: () => lastKill,
    all: () => [...started],
  };
}
