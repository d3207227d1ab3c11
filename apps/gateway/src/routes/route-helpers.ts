// Small pieces every inventory route uses: the acting partner, page requests, NOT_FOUND.
import { type Actor, AppError, domainError } from '@pits/domain';
import type { AuthenticatedPartner } from '../http/index.js';

export const actorOf = (partner: AuthenticatedPartner): Actor => ({ id: partner.partnerId, name: partner.name, email: partner.email });

export const pageOf = (query: { page: number; per_page: number }) => ({ page: query.page, perPage: query.per_page });

export function notFound(what: string, id: string | undefined): AppError {
  const name = id === undefined || id === '' ? what : `${what} ${id}`;
  return new AppError(domainError('NOT_FOUND', `${name} does not exist`, { field: 'id' }));
}
