// Public surface of @pits/webhook-worker (for e2e tools and benchmarks): the worker, its metrics and its configuration.
export { createWebhookWorker, type WebhookWorker, type WebhookWorkerOptions } from './webhook-worker.js';
export { webhookMetrics, type WebhookMetrics } from './webhook-metrics.js';
export { ConfigError, loadWebhookWorkerConfig, type WebhookWorkerConfig } from './config.js';
