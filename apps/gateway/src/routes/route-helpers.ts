// Small pieces every inventory route uses: the acting partner, page requests, numeric path ids, NOT_FOUND.
import { type Actor, AppError, domainError } from '@pits/domain';
import type { AuthenticatedPartner } from '../http/index.js';

export const actorOf = (partner: AuthenticatedPartner): Actor => ({ id: partner.partnerId, name: partner.name, email: partner.email });

export const pageOf = (query: { page: number; per_page: number }) => ({ page: query.page, perPage: query.per_page });

/** A numeric path id, or 0 (which names nothing) when the text is not a positive integer of at most 15 digits. */
export const numericId = (value: string | undefined): number => (value !== undefined && /^[1-9]\d{0,14}$/.test(value) ? Number(value) : 0);

export function notFound(what: string, id: string | undefined): AppError {
  const name = id === undefined || id === '' ? what : `${what} ${id}`;
  return new AppError(domainError('NOT_FOUND', `${name} does not exist`, { field: 'id' }));
}
