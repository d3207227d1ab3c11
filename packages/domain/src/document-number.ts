// Document numbers of adjustments, transfers, inbound shipments and reservations: PREFIX-YYYYMMDD-NNNNNN, a per-tenant sequence
// and the creation date in UTC. The sequence comes from persistence; formatting lives here.

export type DocumentPrefix = 'ADJ' | 'TRF' | 'INB' | 'RSV';

/** @example formatDocumentNumber('ADJ', new Date('2026-11-22T10:00:00Z'), 42) === 'ADJ-20261122-000042' */
export function formatDocumentNumber(prefix: DocumentPrefix, createdAt: Date, sequence: number): string {
  if (!Number.isSafeInteger(sequence) || sequence < 1) throw new RangeError(`document sequence must be a positive integer, got ${sequence}`);
  const day = createdAt.toISOString().slice(0, 10).replaceAll('-', '');
  return `${prefix}-${day}-${String(sequence).padStart(6, '0')}`;
}

const PATTERN = /^(ADJ|TRF|INB|RSV)-(\d{8})-(\d{6,})$/;

/** The parts of a document number, or null when the text is not one. */
export function parseDocumentNumber(text: string): { prefix: DocumentPrefix; day: string; sequence: number } | null {
  const match = PATTERN.exec(text);
  if (!match) return null;
  return { prefix: match[1] as DocumentPrefix, day: match[2] as string, sequence: Number(match[3]) };
}
