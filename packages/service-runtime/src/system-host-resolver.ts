// The production HostResolver: the operating system's resolver (getaddrinfo, so /etc/hosts as
// well as DNS), every address of a name, bounded in time. Webhook registration (gateway and internal
// API) and the delivery worker all use it.
import { lookup } from 'node:dns/promises';
import type { HostResolver } from '@pits/domain';

/**
 * @example
 * const resolve = systemHostResolver({ timeoutMs: 5000 });
 * await resolve('hooks.partner.example'); // ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']
 */
export function systemHostResolver(options: { timeoutMs?: number } = {}): HostResolver {
  const timeoutMs = options.timeoutMs ?? 5000;
  return async (hostname) => {
    let timer: NodeJS.Timeout | undefined;
    // getaddrinfo cannot be cancelled; the caller stops waiting, the thread finishes on its own.
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`resolving took longer than ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const found = await Promise.race([lookup(hostname, { all: true, verbatim: true }), expired]);
      return found.map((entry) => entry.address);
    } finally {
      clearTimeout(timer);
    }
  };
}
