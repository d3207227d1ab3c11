#!/usr/bin/env node
// Starts the partner gateway: config, database (migrated), server; SIGTERM/SIGINT stop it gracefully.
import { pino } from 'pino';
import { createDatabase, describeDatabase, migrateOrThrow } from '@pits/persistence';
import { ConfigError, loadGatewayConfig } from './config.js';
import { createGateway } from './create-gateway.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadGatewayConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = pino({ level: config.logLevel, base: { service: 'gateway' } });
  const database = createDatabase(config.database);
  try {
    await migrateOrThrow(database);
  } catch (error) {
    logger.fatal({ database: describeDatabase(config.database), err: (error as Error).message }, 'cannot migrate the database');
    await database.destroy().catch(() => undefined);
    process.exit(1);
  }
  const gateway = createGateway(config, { database, logger });
  const { url } = await gateway.listen();
  logger.info({ url, database: describeDatabase(config.database), rateLimits: config.redisUrl ? 'redis' : 'memory' }, 'gateway listening');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'gateway stopping: finishing in-flight requests');
    await gateway.close();
    await database.destroy();
    logger.info('gateway stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

await main();
