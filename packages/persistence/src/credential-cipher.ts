// Encryption at rest for secrets the service must be able to read back (logistics credentials,
// webhook signing secrets): AES-256-GCM with a random 96-bit nonce per value and a key from
// configuration. Stored form: `v1.<nonce>.<ciphertext>.<tag>`, each part base64url.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface CredentialCipher {
  encrypt(plain: string): string;
  decrypt(stored: string): string;
}

/**
 * A cipher from a configured key: 32 bytes as 64 hex characters or base64, or any passphrase of
 * at least 32 characters (hashed to 32 bytes).
 *
 * @example
 * const cipher = createCredentialCipher(config.credentialsKey);
 * const stored = cipher.encrypt('s3cret'); cipher.decrypt(stored) === 's3cret';
 */
export function createCredentialCipher(secret: string): CredentialCipher {
  const key = keyBytes(secret);
  return {
    encrypt(plain) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', nonce, body, cipher.getAuthTag()].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },
    decrypt(stored) {
      const [version, nonce, body, tag] = stored.split('.');
      if (version !== 'v1' || nonce === undefined || body === undefined || tag === undefined) throw new Error('not an encrypted credential');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

function keyBytes(secret: string): Buffer {
  if (/^[0-9a-f]{64}$/i.test(secret)) return Buffer.from(secret, 'hex');
  const b64 = Buffer.from(secret, 'base64');
  if (b64.length === 32 && /^[A-Za-z0-9+/]{43}=?$/.test(secret)) return b64;
  if (secret.length < 32) throw new Error('the credentials key must be 32 bytes (64 hex characters or base64) or a passphrase of at least 32 characters');
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** All but the last 4 characters replaced by `*` (docs/identity-and-consent.md#logistics-credentials). @example maskSecret('abcdef123456') === '********3456' */
export function maskSecret(plain: string): string {
  if (plain.length <= 4) return '*'.repeat(plain.length);
  return '*'.repeat(plain.length - 4) + plain.slice(-4);
}
