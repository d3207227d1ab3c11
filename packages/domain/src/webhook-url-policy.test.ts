import { describe, expect, it } from 'vitest';
import { type HostResolver, checkWebhookUrl, checkWebhookUrlForRegistration, isPublicAddress, nonPublicReason, resolveWebhookTarget } from './webhook-url-policy.js';

const STRICT = { allowPrivate: false };
const LENIENT = { allowPrivate: true };

const issueOf = (url: string, policy = STRICT) => {
  const result = checkWebhookUrl(url, policy);
  return result.ok ? null : result.error.details;
};

/** [URL, the issue a partner reads]: every spelling of a blocked range the brief and docs/webhooks.md#endpoint-urls name. */
const REFUSED: ReadonlyArray<readonly [string, string]> = [
  ['http://127.0.0.1/hook', 'must use https'],
  ['http://partner.example/hook', 'must use https'],
  ['ftp://partner.example/hook', 'must use https'],
  ['https://user:pass@partner.example/hook', 'must not contain user information'],
  ['https://user@partner.example/hook', 'must not contain user information'],
  ['https://:secret@partner.example/hook', 'must not contain user information'],
  ['https://127.0.0.1/hook', 'must point to a public address (127.0.0.1 is loopback)'],
  ['https://127.0.0.1:4001/hook', 'must point to a public address (127.0.0.1 is loopback)'],
  ['https://127.9.9.9', 'must point to a public address (127.9.9.9 is loopback)'],
  ['https://2130706433', 'must point to a public address (127.0.0.1 is loopback)'],
  ['https://0x7f000001', 'must point to a public address (127.0.0.1 is loopback)'],
  ['https://0x7F.1', 'must point to a public address (127.0.0.1 is loopback)'],
  ['https://127.1', 'must point to a public address (127.0.0.1 is loopback)'],
  ['https://0177.0.0.1', 'must point to a public address (127.0.0.1 is loopback)'],
  ['https://017700000001', 'must point to a public address (127.0.0.1 is loopback)'],
  ['https://127.0.0.1.', 'must point to a public address (127.0.0.1 is loopback)'],
  ['https://%31%32%37.0.0.1', 'must point to a public address (127.0.0.1 is loopback)'],
  ['https://１２７.０.０.１', 'must point to a public address (127.0.0.1 is loopback)'],
  ['https://0.0.0.0', 'must point to a public address (0.0.0.0 is unspecified)'],
  ['https://0', 'must point to a public address (0.0.0.0 is unspecified)'],
  ['https://10.0.0.1', 'must point to a public address (10.0.0.1 is private)'],
  ['https://172.16.0.1', 'must point to a public address (172.16.0.1 is private)'],
  ['https://172.31.255.255', 'must point to a public address (172.31.255.255 is private)'],
  ['https://192.168.1.1', 'must point to a public address (192.168.1.1 is private)'],
  ['https://100.64.0.1', 'must point to a public address (100.64.0.1 is shared address space (CGNAT))'],
  ['https://169.254.1.1', 'must point to a public address (169.254.1.1 is link-local)'],
  ['https://169.254.169.254/latest/meta-data', 'must point to a public address (169.254.169.254 is a cloud metadata address)'],
  ['https://2852039166', 'must point to a public address (169.254.169.254 is a cloud metadata address)'],
  ['https://100.100.100.200', 'must point to a public address (100.100.100.200 is a cloud metadata address)'],
  ['https://192.0.0.192', 'must point to a public address (192.0.0.192 is a cloud metadata address)'],
  ['https://224.0.0.1', 'must point to a public address (224.0.0.1 is multicast)'],
  ['https://239.255.255.250', 'must point to a public address (239.255.255.250 is multicast)'],
  ['https://240.0.0.1', 'must point to a public address (240.0.0.1 is reserved)'],
  ['https://255.255.255.255', 'must point to a public address (255.255.255.255 is broadcast)'],
  ['https://192.0.2.10', 'must point to a public address (192.0.2.10 is reserved for documentation)'],
  ['https://198.18.0.1', 'must point to a public address (198.18.0.1 is reserved for benchmarking)'],
  ['https://[::1]/hook', 'must point to a public address (::1 is loopback)'],
  ['https://[0:0:0:0:0:0:0:1]', 'must point to a public address (::1 is loopback)'],
  ['https://[::]', 'must point to a public address (:: is unspecified)'],
  ['https://[::ffff:127.0.0.1]', 'must point to a public address (::ffff:7f00:1 maps to 127.0.0.1, which is loopback)'],
  ['https://[::ffff:7f00:1]', 'must point to a public address (::ffff:7f00:1 maps to 127.0.0.1, which is loopback)'],
  ['https://[0:0:0:0:0:ffff:a9fe:a9fe]', 'must point to a public address (::ffff:a9fe:a9fe maps to 169.254.169.254, which is a cloud metadata address)'],
  ['https://[::127.0.0.1]', 'must point to a public address (::7f00:1 is a deprecated IPv4-compatible address)'],
  ['https://[::8.8.8.8]', 'must point to a public address (::808:808 is a deprecated IPv4-compatible address)'],
  ['https://[64:ff9b::127.0.0.1]', 'must point to a public address (64:ff9b::7f00:1 translates (NAT64) to 127.0.0.1, which is loopback)'],
  ['https://[64:ff9b:1::a00:1]', 'must point to a public address (64:ff9b:1::a00:1 is a local-use NAT64 address)'],
  ['https://[2002:7f00:1::1]', 'must point to a public address (2002:7f00:1::1 tunnels (6to4) to 127.0.0.1, which is loopback)'],
  ['https://[2002:c0a8:101::]', 'must point to a public address (2002:c0a8:101:: tunnels (6to4) to 192.168.1.1, which is private)'],
  ['https://[fe80::1]', 'must point to a public address (fe80::1 is link-local)'],
  ['https://[febf::1]', 'must point to a public address (febf::1 is link-local)'],
  ['https://[fec0::1]', 'must point to a public address (fec0::1 is site-local)'],
  ['https://[fc00::1]', 'must point to a public address (fc00::1 is unique-local)'],
  ['https://[fd12:3456::1]', 'must point to a public address (fd12:3456::1 is unique-local)'],
  ['https://[fd00:ec2::254]', 'must point to a public address (fd00:ec2::254 is a cloud metadata address)'],
  ['https://[ff02::1]', 'must point to a public address (ff02::1 is multicast)'],
  ['https://[2001:db8::1]', 'must point to a public address (2001:db8::1 is reserved for documentation)'],
  ['https://[2001::1]', 'must point to a public address (2001::1 is reserved for IETF protocols (Teredo and others))'],
  ['https://[100::1]', 'must point to a public address (100::1 is a discard-only address)'],
  ['https://[4000::1]', 'must point to a public address (4000::1 is reserved)'],
  ['https://localhost/hook', 'must point to a public host (localhost is a local name)'],
  ['https://LOCALHOST:8443', 'must point to a public host (localhost is a local name)'],
  ['https://localhost.', 'must point to a public host (localhost is a local name)'],
  ['https://foo.localhost', 'must point to a public host (foo.localhost is a local name)'],
  ['https://printer.local', 'must point to a public host (printer.local is a local name)'],
  ['https://metadata.google.internal', 'must point to a public host (metadata.google.internal is a local name)'],
  ['https://router.home.arpa', 'must point to a public host (router.home.arpa is a local name)'],
  ['https://box.localdomain', 'must point to a public host (box.localdomain is a local name)'],
  ['https://intranet/hook', 'must point to a public host (intranet is not a fully qualified domain name)'],
  ['https://intranet./hook', 'must point to a public host (intranet is not a fully qualified domain name)'],
  ['not a url', 'must be a URL'],
];

/** Public counterparts: accepted as they are (a name still has to resolve at registration). */
const ACCEPTED = [
  'https://partner.example/hooks/pits',
  'https://hooks.partner.example:8443/a?b=c',
  'https://partner.example./hook',
  'https://93.184.215.14/hook',
  'https://8.8.8.8',
  'https://1.1.1.1',
  'https://172.32.0.1',
  'https://172.15.255.255',
  'https://100.128.0.1',
  'https://11.0.0.1',
  'https://[2606:4700:4700::1111]',
  'https://[2001:4860:4860::8888]',
  'https://[::ffff:8.8.8.8]',
  'https://[64:ff9b::808:808]',
  'https://[2002:808:808::1]',
  'https://localhost.partner.example',
  'https://internal.partner.example',
  'https://xn--bcher-kva.example',
];

describe('webhook URL policy, operator setting off (production)', () => {
  it.each(REFUSED)('refuses %s: %s', (url, issue) => {
    expect(issueOf(url)).toEqual({ field: 'url', issue });
    const result = checkWebhookUrl(url, STRICT);
    expect(result.ok || result.error.kind).toBe('VALIDATION_ERROR');
    expect(result.ok || result.error.message).toBe(`url ${issue}`);
  });

  it.each(ACCEPTED)('accepts %s', (url) => {
    expect(issueOf(url)).toBeNull();
  });

  it('never echoes user information back', () => {
    const result = checkWebhookUrl('https://admin:hunter2@partner.example/hook', STRICT);
    expect(JSON.stringify(result)).not.toMatch(/admin|hunter2/);
  });

  it('takes the URL apart for connecting: host without brackets or trailing dot, the literal address, the port', () => {
    const named = checkWebhookUrl('https://Hooks.Partner.Example./p?q=1', STRICT);
    expect(named.ok && { host: named.value.host, address: named.value.address, port: named.value.port, protocol: named.value.protocol }).toEqual({ host: 'hooks.partner.example', address: null, port: 443, protocol: 'https:' });
    const literal = checkWebhookUrl('https://[2606:4700:4700::1111]:8443/', STRICT);
    expect(literal.ok && { host: literal.value.host, address: literal.value.address, port: literal.value.port }).toEqual({ host: '2606:4700:4700::1111', address: '2606:4700:4700::1111', port: 8443 });
  });
});

describe('webhook URL policy, operator setting on (development and tests)', () => {
  it.each(['http://127.0.0.1:8080/hook', 'https://localhost', 'http://[::1]:9/x', 'https://10.0.0.1', 'https://2130706433', 'http://intranet/hook', 'https://169.254.169.254'])('accepts %s', (url) => {
    expect(issueOf(url, LENIENT)).toBeNull();
  });

  it('still refuses user information and schemes other than http and https', () => {
    expect(issueOf('http://user:pass@127.0.0.1/hook', LENIENT)).toEqual({ field: 'url', issue: 'must not contain user information' });
    expect(issueOf('ftp://127.0.0.1/hook', LENIENT)).toEqual({ field: 'url', issue: 'must be an http or https URL' });
  });
});

describe('isPublicAddress: the check of every resolved address', () => {
  it.each([
    '127.0.0.1', '127.255.255.254', '0.0.0.0', '10.20.30.40', '172.16.5.4', '192.168.0.1', '100.64.1.1', '169.254.169.254',
    '224.1.2.3', '240.1.1.1', '255.255.255.255', '198.19.255.255', '203.0.113.9',
    '::1', '::', '::ffff:127.0.0.1', '::ffff:7f00:1', '::FFFF:10.0.0.1', '64:ff9b::a9fe:a9fe', '2002:a00:1::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff05::2', '2001:db8::5',
  ])('%s is not public', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(['8.8.8.8', '93.184.215.14', '1.0.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::1.1.1.1'])('%s is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each(['fe80::1%eth0', '0177.0.0.1', '2130706433', '127.1', 'localhost', '', '1.2.3.4.5', '256.1.1.1', '1::2::3', '12345::', '::ffff:1.2.3'])(
    'refuses %j, which is not an address in normal notation',
    (ip) => {
      expect(nonPublicReason(ip)).toBe('is not an IP address');
      expect(isPublicAddress(ip)).toBe(false);
    },
  );
});

describe('resolution', () => {
  const hosts: Record<string, string[]> = {
    'hooks.partner.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'evil.test': ['127.0.0.1'],
    'mixed.test': ['93.184.215.14', '10.0.0.7'],
    'mapped.test': ['::ffff:169.254.169.254'],
  };
  const resolver: HostResolver = async (name) => {
    const found = hosts[name];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found;
  };
  const target = (url: string, policy = STRICT) => {
    const checked = checkWebhookUrl(url, policy);
    if (!checked.ok) throw new Error(checked.error.message);
    return checked.value;
  };

  it('gives every address of a public name, and the literal itself without asking the resolver', async () => {
    expect(await resolveWebhookTarget(target('https://hooks.partner.example/x'), STRICT, resolver)).toEqual({ ok: true, value: hosts['hooks.partner.example'] });
    const never: HostResolver = () => Promise.reject(new Error('must not be asked'));
    expect(await resolveWebhookTarget(target('https://[2606:4700:4700::1111]'), STRICT, never)).toEqual({ ok: true, value: ['2606:4700:4700::1111'] });
  });

  it('refuses a name resolving to a blocked address, even among public ones; the setting lets it through', async () => {
    for (const name of ['evil.test', 'mixed.test', 'mapped.test']) {
      expect(await resolveWebhookTarget(target(`https://${name}/x`), STRICT, resolver)).toEqual({ ok: false, error: 'not-allowed' });
    }
    expect(await resolveWebhookTarget(target('http://evil.test/x', LENIENT), LENIENT, resolver)).toEqual({ ok: true, value: ['127.0.0.1'] });
    const garbage: HostResolver = async () => ['not-an-ip'];
    expect(await resolveWebhookTarget(target('http://evil.test/x', LENIENT), LENIENT, garbage)).toEqual({ ok: false, error: 'not-allowed' });
  });

  it('a name without addresses, or one the resolver fails on, is unresolvable', async () => {
    expect(await resolveWebhookTarget(target('https://nowhere.invalid/x'), STRICT, resolver)).toEqual({ ok: false, error: 'unresolvable' });
    expect(await resolveWebhookTarget(target('https://nowhere.invalid/x'), STRICT, async () => [])).toEqual({ ok: false, error: 'unresolvable' });
  });

  it('registration: resolves names (never literals), refuses unresolvable and non-public names without naming the address', async () => {
    const asked: string[] = [];
    const counting: HostResolver = (name) => {
      asked.push(name);
      return resolver(name);
    };
    expect((await checkWebhookUrlForRegistration('https://hooks.partner.example./x', STRICT, counting)).ok).toBe(true);
    const evil = await checkWebhookUrlForRegistration('https://evil.test/x', STRICT, counting);
    expect(evil.ok || evil.error.details).toEqual({ field: 'url', issue: 'must point to a public address (the host name resolves to a non-public address)' });
    expect(JSON.stringify(evil)).not.toContain('127.0.0.1');
    const nowhere = await checkWebhookUrlForRegistration('https://unresolvable.invalid/x', STRICT, counting);
    expect(nowhere.ok || nowhere.error.details).toEqual({ field: 'url', issue: 'host name does not resolve' });
    expect((await checkWebhookUrlForRegistration('https://8.8.8.8/x', STRICT, counting)).ok).toBe(true);
    const literal = await checkWebhookUrlForRegistration('https://127.1/x', STRICT, counting);
    expect(literal.ok || literal.error.details.issue).toBe('must point to a public address (127.0.0.1 is loopback)');
    expect(asked).toEqual(['hooks.partner.example', 'evil.test', 'unresolvable.invalid']);
  });

  it('registration with the setting on resolves nothing: every host is allowed, existing or not', async () => {
    const never: HostResolver = () => Promise.reject(new Error('must not be asked'));
    for (const url of ['http://evil.test/x', 'https://partner.example/x', 'http://127.0.0.1:9/x']) {
      expect((await checkWebhookUrlForRegistration(url, LENIENT, never)).ok, url).toBe(true);
    }
    const userInfo = await checkWebhookUrlForRegistration('http://a:b@evil.test/x', LENIENT, never);
    expect(userInfo.ok || userInfo.error.details.issue).toBe('must not contain user information');
  });
});
