// Public surface of the v1 contract: zod schemas of every route with the reference's examples of
// them, and the helpers that turn a failed parse into the contract's VALIDATION_ERROR.
export * from './field-messages.js';
export * from './text-schemas.js';
export * from './date-schemas.js';
export * from './query-schemas.js';
export * from './pagination-schemas.js';
export * from './decimal-schemas.js';
export * from './line-schemas.js';
export * from './envelope-schemas.js';
export * from './examples.js';
// The document family's builders stay inside the package; each area exports what it builds.
export { actorExample, partnerActor, reasonText } from './document-schemas.js';
export * from './validation-issues.js';
export * from './lot-schemas.js';
export * from './adjustment-schemas.js';
export * from './transfer-schemas.js';
export * from './reservation-schemas.js';
export * from './inbound-schemas.js';
export * from './tenant-schemas.js';
export * from './area-schemas.js';
export * from './stock-schemas.js';
export * from './webhook-schemas.js';
export * from './webhook-event-schemas.js';
export * from './webhook-event-summary.js';
export * from './product-schemas.js';
