// What a test gets back from the gateway: status, headers (lower-case names), raw text and the
// parsed JSON body, plus where it came from, so the contract check can find the live document.

/** A JSON body, loosely typed for assertions. */
export type JsonBody = any;

export interface GatewayResponse {
  /** The gateway's base URL (`http://127.0.0.1:<port>`). */
  baseUrl: string;
  method: string;
  /** The requested path with its query string. */
  path: string;
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The parsed JSON body; undefined when the body is not JSON. */
  body: JsonBody;
}

/** Reads a fetch Response completely. */
export async function readGatewayResponse(baseUrl: string, method: string, path: string, res: Response): Promise<GatewayResponse> {
  const text = await res.text();
  let body: JsonBody;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
  return { baseUrl, method, path, status: res.status, headers, text, body };
}
