// Public surface of @pits/domain: pure rules of the Partner Inventory and Tenant Service.
export * from './errors.js';
export * from './decimal.js';
export * from './exact-totals.js';
export * from './input-rules.js';
export * from './actor.js';
export * from './stock.js';
export * from './adjustment.js';
export * from './stock-count.js';
export * from './transfer.js';
export * from './inbound.js';
export * from './pagination.js';
export * from './document-number.js';
export * from './time-format.js';
export * from './webhook-delivery.js';
export * from './webhook-url-policy.js';
export * from './reservation.js';
