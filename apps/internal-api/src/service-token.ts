// The internal service token check: `Authorization: Bearer <token>` against the configured token,
// compared in constant time on SHA-256 digests so that neither content nor length leaks.
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * A checker for one configured token. The scheme is case-insensitive and surrounding spaces are
 * ignored; a header without the `Bearer` scheme is refused.
 *
 * @example
 * const isServiceToken = createServiceTokenCheck(config.serviceToken);
 * isServiceToken(req.headers.authorization) // true for "Bearer <token>"
 */
export function createServiceTokenCheck(expected: string): (authorization: string | undefined) => boolean {
  const expectedDigest = digest(expected);
  return (authorization) => {
    const match = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    // Still hash something when the header is absent, so every refusal costs the same.
    const presented = digest(match?.[1] ?? '');
    return timingSafeEqual(presented, expectedDigest) && match !== null;
  };
}
