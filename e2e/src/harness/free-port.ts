// A TCP port nobody listens on right now: bind port 0 on the loopback, read what the kernel
// picked, release it. Another process could take it in between; the window is a few ms.
import { createServer } from 'node:net';

/**
 * @example
 * const port = await freePort(); // e.g. 43127
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('could not read the port'))));
    });
  });
}

/** Whether nothing listens on `port` on the loopback right now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
