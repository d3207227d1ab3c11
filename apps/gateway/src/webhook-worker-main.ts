#!/usr/bin/env node
// Starts a webhook delivery worker. Run as many as needed: claims are leased, so no delivery is
// sent by two workers at once. SIGTERM/SIGINT finish the round in flight, then exit.
import { pino } from 'pino';
import { createCredentialCipher, createDatabase, describeDatabase, migrateOrThrow } from '@pits/persistence';
import { ConfigError, loadWebhookWorkerConfig } from './config.js';
import { createWebhookWorker } from './webhooks/webhook-worker.js';

let config;
try {
  config = loadWebhookWorkerConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
const logger = pino({ level: config.logLevel, base: { service: 'webhook-worker' } });
const database = createDatabase(config.database);
await migrateOrThrow(database);
const worker = createWebhookWorker({
  database,
  cipher: createCredentialCipher(config.credentialsKey),
  logger,
  pollMs: config.pollMs,
  timeoutMs: config.timeoutMs,
  concurrency: config.concurrency,
  batchSize: config.batchSize,
  leaseMs: config.leaseMs,
});
worker.start();
logger.info({ workerId: worker.workerId, database: describeDatabase(config.database) }, 'webhook worker started');

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'webhook worker stopping');
  await worker.stop();
  await database.destroy();
  process.exit(0);
};
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
