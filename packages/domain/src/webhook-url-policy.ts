// Where a webhook may be sent (docs/webhooks.md#endpoint-urls): an https URL without user information,
// to a public host. One rule for registration (gateway and internal API) and for every delivery,
// where it is applied again to the addresses the host name resolves to, right before connecting.
// Pure: name resolution is a function the caller passes in.
import { type DomainError, type Result, domainError, fail, ok } from './errors.js';

/** The operator's choice (WEBHOOK_ALLOW_PRIVATE_URLS); off in production. */
export interface WebhookUrlPolicy {
  /** Also `http://` and non-public hosts and addresses (development and tests). User information stays refused. */
  allowPrivate: boolean;
}

/**
 * Every address a host name resolves to (IPv4 dotted, IPv6 as the resolver prints it). Rejects,
 * or resolves to `[]`, when the name has none.
 *
 * @example const resolve: HostResolver = async (name) => (name === 'hooks.partner.test' ? ['203.0.113.7'] : []);
 */
export type HostResolver = (hostname: string) => Promise<readonly string[]>;

/** A URL that passed the policy, taken apart for connecting. */
export interface WebhookTarget {
  url: URL;
  protocol: 'http:' | 'https:';
  /** The host to connect to and to name in TLS: no brackets around IPv6, no trailing dot, lower case. */
  host: string;
  /** The host when it is an IP literal, in its normal form (`127.0.0.1`, `::1`); null for a name. */
  address: string | null;
  port: number;
}

// ---------------------------------------------------------------------------------------------
// Addresses

/** [first address, prefix length, what an address in it is]; the first match wins, so exact entries come first. */
type Range = readonly [string, number, string];

const IPV4_RANGES: readonly Range[] = [
  ['169.254.169.254', 32, 'a cloud metadata address'],
  ['169.254.170.2', 32, 'a cloud metadata address'],
  ['100.100.100.200', 32, 'a cloud metadata address'],
  ['192.0.0.192', 32, 'a cloud metadata address'],
  ['255.255.255.255', 32, 'broadcast'],
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared address space (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved for IETF protocols'],
  ['192.0.2.0', 24, 'reserved for documentation'],
  ['192.88.99.0', 24, 'a 6to4 relay address'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved for benchmarking'],
  ['198.51.100.0', 24, 'reserved for documentation'],
  ['203.0.113.0', 24, 'reserved for documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** IPv6 ranges that are refused outright (those embedding an IPv4 address are handled apart). */
const IPV6_RANGES: readonly Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fd00:ec2::254', 128, 'a cloud metadata address'],
  ['fd20:ce::254', 128, 'a cloud metadata address'],
  ['64:ff9b:1::', 48, 'a local-use NAT64 address'],
  ['100::', 64, 'a discard-only address'],
  ['2001::', 23, 'reserved for IETF protocols (Teredo and others)'],
  ['2001:db8::', 32, 'reserved for documentation'],
  ['3fff::', 20, 'reserved for documentation'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

/** Strict dotted IPv4 (`127.0.0.1`, no leading zeros) as a 32-bit number; null otherwise. */
function parseIpv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value;
}

/** IPv6 (with `::` and an optional dotted IPv4 tail, no zone) as a 128-bit number; null otherwise. */
/**
 * An IPv6 address (any textual form, an embedded IPv4 tail included) as its 128-bit value, or null
 * when `text` is not one.
 *
 * @example parseIpv6('::1') === 1n; parseIpv6('2001:db8::') === 0x20010db8n << 96n
 */
export function parseIpv6(text: string): bigint | null {
  let body = text.toLowerCase();
  let tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (dotted) {
    const v4 = parseIpv4(dotted[2]!);
    if (v4 === null) return null;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    body = dotted[1]!.endsWith('::') ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const groups = (half: string | undefined) => (half === undefined || half === '' ? [] : half.split(':'));
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  if (![...head, ...rest].every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  const words = [...head.map((g) => parseInt(g, 16)), ...Array<number>(8 - given).fill(0), ...rest.map((g) => parseInt(g, 16)), ...tail];
  return words.reduce((acc, word) => (acc << 16n) | BigInt(word), 0n);
}

const NOT_AN_ADDRESS = 'is not an IP address';

const ipv4Text = (value: number) => [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');

function inRange4(value: number, [base, prefix]: Range): boolean {
  const size = 2 ** (32 - prefix);
  return Math.floor(value / size) === Math.floor(parseIpv4(base)! / size);
}

function inRange6(value: bigint, [base, prefix]: Range): boolean {
  const shift = BigInt(128 - prefix);
  return value >> shift === parseIpv6(base)! >> shift;
}

function classifyIpv4(value: number): string | null {
  const listed = IPV4_RANGES.find((range) => inRange4(value, range));
  return listed ? `is ${listed[2]}` : null;
}

/** Why an IPv6 address is not public, or null when it is. */
function classifyIpv6(value: bigint): string | null {
  // Forms that carry an IPv4 address reach that address: judge the IPv4 address.
  const embedded = (v4: number, how: string) => {
    const reason = classifyIpv4(v4);
    return reason === null ? null : `${how} ${ipv4Text(v4)}, which ${reason}`;
  };
  if (value >> 32n === 0xffffn) return embedded(Number(value & 0xffffffffn), 'maps to');
  if (value >> 32n === 0x64ff9b0000000000000000n) return embedded(Number(value & 0xffffffffn), 'translates (NAT64) to');
  if (value >> 112n === 0x2002n) return embedded(Number((value >> 80n) & 0xffffffffn), 'tunnels (6to4) to');
  const listed = IPV6_RANGES.find((range) => inRange6(value, range));
  if (listed) return `is ${listed[2]}`;
  if (value >> 32n === 0n) return 'is a deprecated IPv4-compatible address';
  // Only 2000::/3 is global unicast; nothing outside it is reachable on the internet.
  if (value >> 125n !== 1n) return 'is reserved';
  return null;
}

/**
 * Why an IP address is not a public internet address, as a phrase that follows the address
 * (`"is loopback"`, `"is private"`, `"maps to 127.0.0.1, which is loopback"`), or null when it is
 * public. Anything that is not a plain IPv4 or IPv6 address in normal notation (an IPv6 zone,
 * `0177.0.0.1`, a name) is refused as not an address.
 *
 * @example nonPublicReason('10.1.2.3') === 'is private'; nonPublicReason('8.8.8.8') === null
 */
export function nonPublicReason(ip: string): string | null {
  const v4 = parseIpv4(ip);
  if (v4 !== null) return classifyIpv4(v4);
  const v6 = ip.includes(':') ? parseIpv6(ip) : null;
  if (v6 !== null) return classifyIpv6(v6);
  return NOT_AN_ADDRESS;
}

/**
 * True when a connection to `ip` goes to the public internet: not loopback, private, link-local,
 * unique-local, multicast, unspecified, reserved, metadata, nor an IPv6 form of one of those.
 *
 * @example isPublicAddress('93.184.215.14') === true; isPublicAddress('::ffff:127.0.0.1') === false
 */
export function isPublicAddress(ip: string): boolean {
  return nonPublicReason(ip) === null;
}

// ---------------------------------------------------------------------------------------------
// URLs

/** Suffixes of names that never lead to the public internet (RFC 6761, 6762, 8375; ICANN's .internal). */
const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa'];

/** Why a host name is not a public one, or null. */
function nonPublicName(host: string): string | null {
  if (LOCAL_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) return `${host} is a local name`;
  if (!host.includes('.')) return `${host} is not a fully qualified domain name`;
  return null;
}

function refuse(issue: string): { ok: false; error: DomainError } {
  return fail(domainError('VALIDATION_ERROR', `url ${issue}`, { field: 'url', issue }));
}

/**
 * Checks a webhook URL without resolving it: the scheme, user information, and a host that is an
 * IP literal in any spelling the URL standard accepts (`2130706433`, `0x7f000001`, `127.1`,
 * `0177.0.0.1` all are 127.0.0.1) or a name that is local by definition. A refusal is
 * VALIDATION_ERROR on `url` with an issue a partner can act on.
 *
 * @example
 * checkWebhookUrl('https://2130706433/hook', { allowPrivate: false })
 * // { ok: false, error: { kind: 'VALIDATION_ERROR', details: { field: 'url', issue: 'must point to a public address (127.0.0.1 is loopback)' } } }
 */
export function checkWebhookUrl(url: string, policy: WebhookUrlPolicy): Result<WebhookTarget> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse('must be a URL');
  }
  const { protocol } = parsed;
  if (protocol !== 'https:' && !(policy.allowPrivate && protocol === 'http:')) {
    return refuse(policy.allowPrivate ? 'must be an http or https URL' : 'must use https');
  }
  if (parsed.username !== '' || parsed.password !== '') return refuse('must not contain user information');
  const bracketed = parsed.hostname.startsWith('[');
  const host = (bracketed ? parsed.hostname.slice(1, -1) : parsed.hostname).replace(/\.$/, '');
  if (host === '') return refuse('must name a host');
  // The URL parser already turned every IPv4 spelling into dotted form, and IPv6 into its short form.
  const address = bracketed || parseIpv4(host) !== null ? host : null;
  const target: WebhookTarget = { url: parsed, protocol, host, address, port: parsed.port === '' ? (protocol === 'https:' ? 443 : 80) : Number(parsed.port) };
  if (policy.allowPrivate) return ok(target);
  if (address !== null) {
    const reason = nonPublicReason(address);
    if (reason !== null) return refuse(`must point to a public address (${address} ${reason})`);
  } else {
    const reason = nonPublicName(host);
    if (reason !== null) return refuse(`must point to a public host (${reason})`);
  }
  return ok(target);
}

/** Why resolution gave nothing to connect to: no address at all, or one that the policy refuses. */
export type ResolutionRefusal = 'unresolvable' | 'not-allowed';

/**
 * The addresses to connect to for a checked target: its IP literal, or every address its name
 * resolves to. Unless the policy allows private addresses, one non-public address among them
 * refuses them all (a name that mixes public and private answers is not to be trusted). The
 * caller connects only to the addresses returned, so what was checked is what is reached.
 *
 * @example
 * await resolveWebhookTarget(target, { allowPrivate: false }, async () => ['127.0.0.1'])
 * // { ok: false, error: 'not-allowed' }
 */
export async function resolveWebhookTarget(
  target: WebhookTarget,
  policy: WebhookUrlPolicy,
  resolve: HostResolver,
): Promise<Result<string[], ResolutionRefusal>> {
  let addresses: readonly string[];
  if (target.address !== null) {
    addresses = [target.address];
  } else {
    try {
      addresses = await resolve(target.host);
    } catch {
      return { ok: false, error: 'unresolvable' };
    }
  }
  if (addresses.length === 0) return { ok: false, error: 'unresolvable' };
  const acceptable = (ip: string) => {
    const reason = nonPublicReason(ip);
    return reason === null || (policy.allowPrivate && reason !== NOT_AN_ADDRESS);
  };
  return addresses.every(acceptable) ? ok([...addresses]) : { ok: false, error: 'not-allowed' };
}

/**
 * The registration check: `checkWebhookUrl`, then, for a host name, its resolution, refusing a
 * name that does not resolve or that resolves to a non-public address. With `allowPrivate`
 * nothing is resolved: no address would be refused, and names used in development need not
 * exist yet. The resolved addresses are never named in the refusal (a name may resolve only
 * inside our network).
 *
 * @example
 * await checkWebhookUrlForRegistration('https://hooks.partner.example/pits', { allowPrivate: false }, dnsResolver)
 */
export async function checkWebhookUrlForRegistration(url: string, policy: WebhookUrlPolicy, resolve: HostResolver): Promise<Result<WebhookTarget>> {
  const checked = checkWebhookUrl(url, policy);
  if (!checked.ok || policy.allowPrivate || checked.value.address !== null) return checked;
  const resolved = await resolveWebhookTarget(checked.value, policy, resolve);
  if (resolved.ok) return checked;
  return refuse(resolved.error === 'unresolvable' ? 'host name does not resolve' : 'must point to a public address (the host name resolves to a non-public address)');
}
