// Public surface of @pits/service-runtime.
export * from './http-server.js';
export * from './settings.js';
export * from './process-settings.js';
export * from './log-fields.js';
export * from './traceparent.js';
export * from './metrics.js';
export * from './operator-server.js';
export * from './metric-sample.js';
export * from './system-host-resolver.js';
export * from './deadline.js';
export * from './run-service.js';
export * from './run-database-service.js';
export * from './webhook-request.js';
export * from './send-webhook-delivery.js';
