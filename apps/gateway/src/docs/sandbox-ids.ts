// The sandbox's own records, by what each is for, so that "Test Request" of /docs pre-fills a path id
// with one that exists in this database (npm start passes them as DOCS_SANDBOX_IDS, from what it
// seeded): the active hold for the reservation routes, the transfer to ship for ship, and so on.

/** The sandbox records a path id can name, each in the words the reference uses for it. */
export const SANDBOX_RECORDS = {
  product: 'first product',
  adjustment: 'pending adjustment',
  transfer: 'pending transfer',
  transfer_to_ship: 'approved transfer (to ship)',
  transfer_to_receive: 'transfer in transit (to receive)',
  inbound: 'pending inbound shipment',
  reservation: 'active order hold',
  webhook: 'webhook endpoint',
} as const;

export type SandboxRecord = keyof typeof SANDBOX_RECORDS;

/** The id of each sandbox record this server knows; a record not named keeps the reference's example. */
export type SandboxIds = Readonly<Partial<Record<SandboxRecord, string>>>;

const ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * Reads `record=id` pairs separated by commas; an unknown record, a malformed id or a record named
 * twice is refused with the reason.
 *
 * @example parseSandboxIds('reservation=RSV-20261122-000002,product=1') // { ok: true, ids: { reservation: 'RSV-20261122-000002', product: '1' } }
 */
export function parseSandboxIds(text: string): { ok: true; ids: SandboxIds } | { ok: false; problem: string } {
  const ids: Partial<Record<SandboxRecord, string>> = {};
  for (const pair of text.split(',')) {
    const [record = '', id = '', ...rest] = pair.trim().split('=');
    if (!Object.hasOwn(SANDBOX_RECORDS, record)) return { ok: false, problem: `names ${JSON.stringify(record)}, which is none of ${Object.keys(SANDBOX_RECORDS).join(', ')}` };
    if (rest.length > 0 || !ID.test(id)) return { ok: false, problem: `must give ${record} an id of 1 to 64 letters, digits or -, got ${JSON.stringify(pair.trim())}` };
    if (ids[record as SandboxRecord] !== undefined) return { ok: false, problem: `names ${record} twice` };
    ids[record as SandboxRecord] = id;
  }
  return { ok: true, ids };
}
