// A hosts file for one child process: names under a reserved test suffix resolve to the addresses
// the test says, in that process only, and every lookup is written to its stderr. The apps resolve
// webhook hosts with node:dns/promises `lookup` (getaddrinfo: /etc/hosts, then DNS) and offer no
// test-only resolver setting, and /etc/hosts belongs to the machine; so the table is loaded with
// Node's own `--import` preload (NODE_OPTIONS) and replaces `lookup` before the app's code runs.
// Everything after the lookup (the URL policy, the checked addresses, the connection) is the app's.

/** Names this table answers for end with this suffix (RFC 6761 reserves `.test`; no public DNS ever answers it). */
export const HOST_TABLE_SUFFIX = 'rebind.test';

/** What the preload writes to stderr for each lookup of a name under the suffix. */
const LOOKUP_MARK = '[e2e-host-table] lookup';

/**
 * The preload, as plain JavaScript (the child runs built code, not TypeScript). It replaces the
 * `lookup` of node:dns/promises and re-syncs the ESM bindings of the built-in module, so the
 * app's `import { lookup } from 'node:dns/promises'` sees it. A name under the suffix that is not
 * in the table does not resolve (ENOTFOUND), without asking real DNS; other names go to the system.
 */
const PRELOAD = `
import dns from 'node:dns/promises';
import { syncBuiltinESMExports } from 'node:module';
const table = JSON.parse(process.env.E2E_HOST_TABLE ?? '{}');
const suffix = ${JSON.stringify(HOST_TABLE_SUFFIX)};
const system = dns.lookup;
dns.lookup = async function lookup(hostname, options) {
  const name = String(hostname).toLowerCase().replace(/\\.$/, '');
  if (name !== suffix && !name.endsWith('.' + suffix)) return system.call(this, hostname, options);
  const listed = table[name] ?? [];
  process.stderr.write(${JSON.stringify(LOOKUP_MARK)} + ' ' + name + ' -> ' + JSON.stringify(listed) + '\\n');
  const family = typeof options === 'number' ? options : (options?.family ?? 0);
  const entries = listed.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })).filter((e) => !family || e.family === family);
  if (entries.length === 0) throw Object.assign(new Error('getaddrinfo ENOTFOUND ' + hostname), { code: 'ENOTFOUND', hostname });
  return typeof options === 'object' && options?.all ? entries : entries[0];
};
syncBuiltinESMExports();
process.stderr.write('[e2e-host-table] loaded ' + Object.keys(table).length + ' name(s)\\n');
`;

/**
 * The environment that gives a gateway or worker process the table. Merge it into the process's
 * `env` (it sets NODE_OPTIONS).
 *
 * @example
 * const worker = await startWorkerProcess({ databaseUrl, credentialsKey, env: hostTableEnv({ 'hooks.rebind.test': ['127.0.0.1'] }) });
 */
export function hostTableEnv(table: Record<string, readonly string[]>): Record<string, string> {
  for (const name of Object.keys(table)) {
    if (name !== name.toLowerCase() || !name.endsWith(`.${HOST_TABLE_SUFFIX}`)) throw new Error(`${name}: table names are lower case and end with .${HOST_TABLE_SUFFIX}`);
  }
  const url = `data:text/javascript;base64,${Buffer.from(PRELOAD, 'utf8').toString('base64')}`;
  return { NODE_OPTIONS: `--import=${url}`, E2E_HOST_TABLE: JSON.stringify(table) };
}

/** Whether the preload is active in a process, judged by its output. */
export function hostTableLoaded(output: readonly string[]): boolean {
  return output.some((line) => line.includes('[e2e-host-table] loaded'));
}

/**
 * The names a process looked up through the table, in order, from its output.
 *
 * @example
 * expect(hostLookups(worker.output())).toContain('hooks.rebind.test');
 */
export function hostLookups(output: readonly string[]): string[] {
  return output.flatMap((line) => {
    const at = line.indexOf(LOOKUP_MARK);
    if (at < 0) return [];
    const name = line.slice(at + LOOKUP_MARK.length).trim().split(' ')[0];
    return name ? [name] : [];
  });
}
