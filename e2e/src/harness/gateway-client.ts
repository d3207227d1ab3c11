// Talks to a gateway process over real HTTP (fetch) and puts every response through the contract
// check, so no test can look at a response that was not validated against /openapi.json.
import { type GatewayResponse, readGatewayResponse } from './gateway-response.js';
import { expectContract } from './openapi-contract.js';

export interface GatewayRequest {
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  /** Sent verbatim as `Authorization` (wins over `key`). */
  authorization?: string;
  /** `X-Tenant-Id`. */
  tenant?: string;
  query?: Record<string, string | number>;
  /** A body sent as JSON. */
  json?: unknown;
  /** A body sent exactly as given (bad JSON, oversized bodies). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** The OpenAPI path template the response is checked against, when `path` has parameters. */
  template?: string;
}

export interface GatewayClient {
  readonly url: string;
  /** Any request; the response has passed `expectContract` for `method` and the path (without query) or `template`. */
  request(method: string, path: string, request?: GatewayRequest): Promise<GatewayResponse>;
  get(path: string, request?: GatewayRequest): Promise<GatewayResponse>;
  post(path: string, json: unknown, request?: GatewayRequest): Promise<GatewayResponse>;
}

/**
 * @example
 * const gw = gatewayClient(gateway.url);
 * const res = await gw.get('/api/partner/v1/tenants', { key, query: { per_page: 5 } });
 * // gatewayClient(url, { onResponse: (res) => seen.push(res) }) also hands every response to a recorder
 */
export function gatewayClient(url: string, hooks: { onResponse?: (res: GatewayResponse) => void } = {}): GatewayClient {
  const request = async (method: string, path: string, options: GatewayRequest = {}): Promise<GatewayResponse> => {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.authorization !== undefined) headers['authorization'] = options.authorization;
    else if (options.key !== undefined) headers['authorization'] = `Bearer ${options.key}`;
    if (options.tenant !== undefined) headers['x-tenant-id'] = options.tenant;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.json !== undefined) body = JSON.stringify(options.json);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const query = options.query ? `?${new URLSearchParams(Object.entries(options.query).map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
    const fullPath = `${path}${query}`;
    const res = await fetch(`${url}${fullPath}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const read = await readGatewayResponse(url, method, fullPath, res);
    hooks.onResponse?.(read);
    return expectContract(read, method, options.template ?? path);
  };
  return {
    url,
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, json, options) => request('POST', path, { ...options, json }),
  };
}
