// A partner's webhook endpoint for e2e tests: a real node:http server on the loopback that records
// every arrival (headers and the exact body bytes) and answers as the test says: a status code, or
// holding the request open (a slow receiver) until the sender gives up or goes away.
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pollUntil } from './poll-until.js';

export interface WebhookArrival {
  /** 1-based, in arrival order. */
  seq: number;
  method: string;
  path: string;
  /** `X-Webhook-Id`, `X-Webhook-Timestamp`, `X-Webhook-Signature`, `Content-Type`. */
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  contentType: string | undefined;
  /** The body exactly as received (what the signature covers). */
  body: string;
  arrivedAt: number;
  /** The status answered; `held` while the request is held; `aborted` when the sender went away first. */
  outcome: number | 'held' | 'aborted';
}

/** A status code to answer with, or `hold` to keep the request open. */
export type ReceiverAnswer = number | 'hold';
export type ReceiverPolicy = (arrival: WebhookArrival) => ReceiverAnswer;

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hooks/<name>` */
  readonly url: string;
  readonly arrivals: readonly WebhookArrival[];
  /** Changes how later arrivals are answered (held ones stay held). */
  answerWith(policy: ReceiverPolicy): void;
  /** Resolves once at least `count` requests arrived; rejects after `timeoutMs`. */
  waitForArrivals(count: number, timeoutMs: number): Promise<WebhookArrival[]>;
  /** How many arrivals carrying `X-Webhook-Id: id` were answered with a 2xx. */
  acceptedCount(id: string): number;
  /** TCP connections accepted so far, whether or not a request followed (a TLS hello to this plain-HTTP server counts too). */
  connections(): number;
  /** Stops listening and drops every connection (held requests included). */
  close(): Promise<void>;
}

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/**
 * @example
 * const receiver = await startWebhookReceiver('flaky', (a) => (a.seq <= 2 ? 500 : 200));
 * await receiver.waitForArrivals(3, 70_000);
 * await receiver.close();
 */
export async function startWebhookReceiver(name: string, policy: ReceiverPolicy = () => 200): Promise<WebhookReceiver> {
  const arrivals: WebhookArrival[] = [];
  let answer = policy;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrival: WebhookArrival = {
        seq: arrivals.length + 1,
        method: req.method ?? '',
        path: req.url ?? '',
        id: header(req, 'x-webhook-id'),
        timestamp: header(req, 'x-webhook-timestamp'),
        signature: header(req, 'x-webhook-signature'),
        contentType: header(req, 'content-type'),
        body: Buffer.concat(chunks).toString('utf8'),
        arrivedAt: Date.now(),
        outcome: 'held',
      };
      arrivals.push(arrival);
      res.on('close', () => {
        if (!res.writableFinished) arrival.outcome = 'aborted';
      });
      const decided = answer(arrival);
      if (decided === 'hold') return;
      arrival.outcome = decided;
      res.writeHead(decided, { 'content-type': 'text/plain' }).end(decided < 300 ? 'ok' : 'not now');
    });
  });
  let connections = 0;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/${name}`,
    arrivals,
    answerWith(next) {
      answer = next;
    },
    waitForArrivals: (count, timeoutMs) => pollUntil(`${count} arrival(s) at the ${name} receiver (${arrivals.length} so far)`, timeoutMs, () => (arrivals.length >= count ? [...arrivals] : undefined), 25),
    acceptedCount: (id) => arrivals.filter((a) => a.id === id && typeof a.outcome === 'number' && a.outcome >= 200 && a.outcome < 300).length,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
