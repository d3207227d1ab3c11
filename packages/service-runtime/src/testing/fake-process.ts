// A process for the shell's tests: signals are emitted by the test, exits are recorded.
import { EventEmitter } from 'node:events';
import { expect } from 'vitest';
import type { StopSignal } from '../run-service.js';

export class FakeProcess extends EventEmitter {
  readonly exits: number[] = [];
  exit(code: number): void {
    this.exits.push(code);
  }
  signal(name: StopSignal): void {
    this.emit(name);
  }
}

/** One turn of the event loop. */
export const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Waits until `steps` holds `step` (the shell's steps are asynchronous). */
export async function until(steps: string[], step: string): Promise<void> {
  for (let i = 0; i < 100 && !steps.includes(step); i += 1) await tick();
  expect(steps).toContain(step);
}
