import { describe, expect, it } from 'vitest';
import { createServiceTokenCheck } from './service-token.js';

const TOKEN = 'internal-token-abcdefghijklmnopqrstuvwxyz';

describe('createServiceTokenCheck', () => {
  const isServiceToken = createServiceTokenCheck(TOKEN);

  it('accepts the token as a Bearer credential, scheme in any case, spaces around ignored', () => {
    expect(isServiceToken(`Bearer ${TOKEN}`)).toBe(true);
    expect(isServiceToken(`bearer ${TOKEN}`)).toBe(true);
    expect(isServiceToken(`  BEARER   ${TOKEN}  `)).toBe(true);
  });

  it('refuses a missing, empty, wrong, partial or longer token, and other schemes', () => {
    for (const header of [undefined, '', 'Bearer', 'Bearer ', TOKEN, `Basic ${TOKEN}`, `Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${TOKEN}x`, `Bearer ${TOKEN} extra`, 'Bearer wrong']) {
      expect(isServiceToken(header), String(header)).toBe(false);
    }
  });
});
