import { describe, expect, it } from 'vitest';
import { partnerActor } from './document-schemas.js';

describe('partnerActor', () => {
  it('is {id, name, email}', () => {
    expect(partnerActor.safeParse({ id: 1, name: 'Acme', email: 'ops@acme.test' }).success).toBe(true);
    expect(partnerActor.safeParse({ id: '1', name: 'Acme', email: 'ops@acme.test' }).success).toBe(false);
  });
});
