// Public surface of @pits/service-runtime.
export * from './http-server.js';
export * from './settings.js';
export * from './process-settings.js';
