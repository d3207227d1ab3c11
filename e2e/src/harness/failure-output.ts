// When a test fails, what the processes it talked to wrote is the first thing one wants to read.
import { afterEach } from 'vitest';
import type { ChildService } from './child-service.js';

/**
 * Registers an afterEach hook in the current file or describe block that prints the tail of every
 * service's output after a failed test.
 *
 * @example
 * showOutputOnFailure(() => [stack.gateway, stack.internalApi]);
 */
export function showOutputOnFailure(services: () => Array<ChildService | undefined>, lines = 80): void {
  afterEach(async (context) => {
    if (context.task.result?.state !== 'fail') return;
    // Lines of the failing request may still be in the pipe.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const service of services()) {
      if (service) console.error(service.describe(lines));
    }
  });
}
