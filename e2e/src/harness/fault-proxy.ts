// A TCP proxy that a test controls, standing between a process under test and its PostgreSQL or
// Redis: it simulates outages, failovers, stalls and slow links without touching the shared servers.
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const HOST = '127.0.0.1';
/** Reopening the same port after a cut: another socket may hold it for a moment. */
const REOPEN_ATTEMPTS = 40;
const REOPEN_DELAY_MS = 50;

/** `pass` forwards, `cut` refuses, `stall` holds every byte; `closed` once `close()` was called. */
export type FaultMode = 'pass' | 'cut' | 'stall' | 'closed';

export interface FaultProxyStats {
  /** Client connections taken in (linked to the target, or held while stalled). */
  accepted: number;
  /** Connections that slipped in while cut, before the listener closed, and were reset at once. */
  refused: number;
  /** Connections the proxy tore down: by `cut`, `reset` or `close`, or because one side failed. */
  destroyed: number;
  bytesToTarget: number;
  bytesToClient: number;
}

export interface FaultProxyOptions {
  target: { host: string; port: number };
  /** 0 (the default) takes a free port; later reopenings after `cut()` reuse whatever was taken. */
  listenPort?: number;
}

export interface FaultProxy {
  readonly host: string;
  /** Stays the same for the proxy's whole life, across `cut()` and `pass()`. */
  readonly port: number;
  /** `base` with its host and port pointed at the proxy: `postgres://u@127.0.0.1:5432/db` → `…@127.0.0.1:<port>/db`. */
  url(base: string): string;
  mode(): FaultMode;
  /**
   * Forward both ways (the default). After `stall()` held connections resume where they stopped, as
   * TCP does when a link or a paused server comes back (call `reset()` instead to drop them).
   */
  pass(): Promise<void>;
  /** An outage: resets every open connection, then closes the listener so connects get ECONNREFUSED. */
  cut(): Promise<void>;
  /** A failover: resets every open connection once and goes on (or back to) forwarding. */
  reset(): Promise<void>;
  /** A stall: sockets stay open and new connects succeed, but no byte moves either way. */
  stall(): Promise<void>;
  /** Delays every chunk, each direction, by `ms` (0 turns it off). Order is kept. */
  latency(ms: number): void;
  /** Client connections open now. */
  connections(): number;
  stats(): FaultProxyStats;
  /** Resets everything and stops listening; idempotent. */
  close(): Promise<void>;
}

interface Relay { stall(): void; resume(): void }
/** A client connection and, once it reached it, its connection to the target. */
interface Link { client: Socket; target: Socket | undefined; relays: Relay[] }

/** RST where the socket allows it, so the peer sees ECONNRESET rather than a polite end. */
function kill(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.connecting) socket.destroy();
  else socket.resetAndDestroy();
}

/**
 * Starts a proxy on 127.0.0.1 that forwards to `target` until the test says otherwise.
 *
 * @example
 * const db = await startFaultProxy({ target: { host: '127.0.0.1', port: 5432 } });
 * const env = { DATABASE_URL: db.url('postgres://postgres@127.0.0.1:5432/test') };
 * // ... start the process under test with env
 * await db.cut(); // the database is gone: open connections reset, new ones refused
 * await db.pass(); // it is back, on the same port
 * await db.close();
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const { target } = options;
  const links = new Set<Link>();
  const stats: FaultProxyStats = { accepted: 0, refused: 0, destroyed: 0, bytesToTarget: 0, bytesToClient: 0 };
  let mode: FaultMode = 'pass';
  let delayMs = 0;
  let port = options.listenPort ?? 0;
  let listener: Server | undefined;
  let settled: Promise<void> = Promise.resolve();

  /** One direction of a link: a FIFO that honours the latency, stalls and the writer's backpressure. */
  function relay(from: Socket, to: Socket, count: (bytes: number) => void): Relay {
    const queue: { chunk: Buffer; due: number }[] = [];
    let timer: NodeJS.Timeout | undefined;
    let ended = false;
    const flush = (): void => {
      clearTimeout(timer);
      timer = undefined;
      if (mode !== 'pass' || to.destroyed) return;
      while (queue.length > 0 && queue[0]!.due <= Date.now()) {
        const { chunk } = queue.shift()!;
        count(chunk.length);
        if (!to.write(chunk)) from.pause();
      }
      if (queue.length > 0) timer = setTimeout(flush, queue[0]!.due - Date.now());
      else if (ended) to.end();
    };
    from.on('data', (chunk: Buffer) => {
      queue.push({ chunk, due: Date.now() + delayMs });
      if (timer === undefined) flush();
    });
    from.on('end', () => {
      ended = true;
      if (timer === undefined) flush();
    });
    to.on('drain', () => mode === 'pass' && from.resume());
    to.on('close', () => clearTimeout(timer));
    return {
      stall: () => from.pause(),
      resume: () => {
        if (!to.writableNeedDrain) from.resume();
        flush();
      },
    };
  }

  /** Tears a link down with resets on both sides (once). */
  function drop(link: Link): void {
    if (!links.delete(link)) return;
    stats.destroyed += 1;
    kill(link.client);
    if (link.target) kill(link.target);
  }

  /** A socket of the link closed: an error takes the other side down too; a clean end lets it finish. */
  function settle(link: Link, hadError: boolean): void {
    if (hadError) drop(link);
    else if (link.client.destroyed && (link.target?.destroyed ?? true)) links.delete(link);
  }

  function linkTarget(link: Link): void {
    // Half-open on both sides: a FIN crosses as a FIN, so a client that half-closes still gets its answer.
    const socket = connect({ host: target.host, port: target.port, noDelay: true, allowHalfOpen: true });
    socket.on('error', () => undefined); // every failure also arrives as 'close' with hadError
    socket.on('close', (hadError) => settle(link, hadError));
    link.target = socket;
    link.relays = [
      relay(link.client, socket, (bytes) => (stats.bytesToTarget += bytes)),
      relay(socket, link.client, (bytes) => (stats.bytesToClient += bytes)),
    ];
    for (const r of link.relays) r.resume(); // only ever called while passing
  }

  function accept(client: Socket): void {
    client.on('error', () => undefined);
    if (mode === 'cut' || mode === 'closed') {
      stats.refused += 1;
      kill(client);
      return;
    }
    stats.accepted += 1;
    client.setNoDelay(true);
    const link: Link = { client, target: undefined, relays: [] };
    links.add(link);
    client.on('close', (hadError) => settle(link, hadError));
    // While stalled the client is held, unread (pauseOnConnect) and not linked, until pass().
    if (mode === 'pass') linkTarget(link);
  }

  async function listen(): Promise<Server> {
    for (let attempt = 1; ; attempt += 1) {
      const server = createServer({ pauseOnConnect: true, allowHalfOpen: true }, accept);
      const failed = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
        server.once('error', resolve);
        server.listen(port, HOST, () => resolve(undefined));
      });
      if (!failed) {
        // Later errors (an accept failing with EMFILE) fail one client's connect; never the tests.
        server.removeAllListeners('error').on('error', () => undefined);
        port = (server.address() as AddressInfo).port;
        return server;
      }
      if (failed.code !== 'EADDRINUSE' || port === 0 || attempt >= REOPEN_ATTEMPTS) {
        throw new Error(`fault proxy: cannot listen on ${HOST}:${port} (${failed.code ?? failed.message})`);
      }
      await sleep(REOPEN_DELAY_MS);
    }
  }

  /** Brings the listener in line with the mode; calls queue up, so the last one wins. */
  function reconcile(): Promise<void> {
    settled = settled.catch(() => undefined).then(async () => {
      const wanted = mode !== 'cut' && mode !== 'closed';
      if (wanted && !listener) listener = await listen();
      if (!wanted && listener) {
        const server = listener;
        listener = undefined;
        await new Promise((resolve) => server.close(resolve));
      }
    });
    return settled;
  }

  /** A control: switch the mode, act on the open connections now, then settle the listener. */
  const control = (next: FaultMode, act: () => void) => async () => {
    if (mode === 'closed') throw new Error('fault proxy: already closed');
    mode = next;
    act();
    return reconcile();
  };
  const dropAll = () => [...links].forEach(drop);

  await reconcile();
  return {
    host: HOST,
    get port() {
      return port;
    },
    url(base) {
      const url = new URL(base);
      url.hostname = HOST;
      url.port = String(port);
      return url.toString();
    },
    mode: () => mode,
    pass: control('pass', () => {
      for (const link of links) {
        if (link.target) for (const r of link.relays) r.resume();
        else linkTarget(link);
      }
    }),
    cut: control('cut', dropAll),
    reset: control('pass', dropAll),
    stall: control('stall', () => {
      for (const link of links) for (const r of link.relays) r.stall();
    }),
    latency(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new Error(`fault proxy: latency must be a number of ms >= 0, got ${ms}`);
      delayMs = ms;
    },
    connections: () => [...links].filter((link) => !link.client.destroyed).length,
    stats: () => ({ ...stats }),
    async close() {
      if (mode !== 'closed') {
        mode = 'closed';
        dropAll();
      }
      return reconcile();
    },
  };
}
