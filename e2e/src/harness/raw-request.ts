// Requests fetch cannot make: a body streamed in chunks without Content-Length. The server may
// answer before the upload ends and close the connection; whatever it answered is returned.
import { request } from 'node:http';
import { type GatewayResponse } from './gateway-response.js';
import { expectContract } from './openapi-contract.js';

export interface ChunkedUpload {
  headers: Record<string, string>;
  chunk: string;
  count: number;
  /** Sent after the copies, as the last chunk. */
  tail?: string;
}

/**
 * Streams `count` copies of `chunk`, then `tail` (chunked transfer encoding), and returns the
 * response, after the contract check for `method` and `path`.
 *
 * @example
 * const res = await chunkedRequest(gateway.url, 'POST', '/api/partner/v1/tenants/authorize', { headers, chunk: 'x'.repeat(65536), count: 16, tail: 'x' });
 */
export async function chunkedRequest(baseUrl: string, method: string, path: string, upload: ChunkedUpload): Promise<GatewayResponse> {
  const url = new URL(path, baseUrl);
  const response = await new Promise<GatewayResponse>((resolve, reject) => {
    const req = request(url, { method, headers: { ...upload.headers, 'transfer-encoding': 'chunked' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ baseUrl, method, path, status: res.statusCode ?? 0, headers, text, body });
      });
      res.on('error', reject);
    });
    // The server may stop reading and close once over the limit: a write error after that is expected.
    req.on('error', (error) => setTimeout(() => reject(error), 1000));
    let sent = 0;
    const pump = () => {
      while (sent < upload.count) {
        sent += 1;
        if (!req.write(upload.chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end(upload.tail);
    };
    pump();
  });
  return expectContract(response, method, path);
}
