// Reading one value back out of a Prometheus text exposition: what the tests (and anyone checking
// a scrape by hand in a script) use instead of matching whole lines, whose label order is prom-client's business.

/**
 * The value of the first series named `name` whose labels include `labels`, or undefined.
 *
 * @example metricSample(text, 'pits_http_requests_total', { route: 'unmatched', status: '404' }) // 3
 */
export function metricSample(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = new Map([...(match[2] ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found.get(key) === value)) return Number(match[3]);
  }
  return undefined;
}
