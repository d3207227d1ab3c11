/**
 * Thrown by this package when the database did not answer within a deadline (a silent
 * connection, a caller's request deadline, a readiness probe).
 *
 * @example throw new DatabaseUnavailableError('the database did not answer within 6000 ms');
 */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}
