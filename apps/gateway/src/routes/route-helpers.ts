// Small pieces every inventory route uses: the acting partner, page requests, numeric path ids, NOT_FOUND.
import { type Actor, AppError, type LotAllocation, domainError, toJsonNumber } from '@pits/domain';
import type { AuthenticatedPartner } from '../http/index.js';

export const actorOf = (partner: AuthenticatedPartner): Actor => ({ id: partner.partnerId, name: partner.name, email: partner.email });

export const pageOf = (query: { page: number; per_page: number }) => ({ page: query.page, perPage: query.per_page });

/** A numeric path id, or 0 (which names nothing) when the text is not a positive integer of at most 15 digits. */
export const numericId = (value: string | undefined): number => (value !== undefined && /^[1-9]\d{0,14}$/.test(value) ? Number(value) : 0);

/** The lots a hold or transfer line took, as the contract shows them (docs/lots.md#holds-and-transfers). */
export const presentAllocations = (allocations: readonly LotAllocation[]) =>
  allocations.map((a) => ({ lot_number: a.lotNumber, expiry_date: a.expiryDate, quantity: toJsonNumber(a.quantity) }));

/** A line's lot, as requests give it (docs/lots.md#lines-name-their-lot). */
export const lotOf = (line: { lot_number?: string | undefined; expiry_date?: string | undefined; production_date?: string | undefined }) => ({
  lotNumber: line.lot_number,
  expiryDate: line.expiry_date,
  productionDate: line.production_date,
});

export function notFound(what: string, id: string | undefined): AppError {
  const name = id === undefined || id === '' ? what : `${what} ${id}`;
  return new AppError(domainError('NOT_FOUND', `${name} does not exist`, { field: 'id' }));
}
