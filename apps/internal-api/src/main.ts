// Entry point: configuration, database, migrations, server, and a graceful stop on SIGTERM/SIGINT.
import { createDatabase, describeDatabase, migrateOrThrow } from '@pits/persistence';
import { pino } from 'pino';
import { ConfigError, type InternalApiConfig, loadInternalApiConfig } from './config.js';
import { createInternalApi } from './create-internal-api.js';

let config: InternalApiConfig;
try {
  config = loadInternalApiConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

const logger = pino({ name: 'internal-api', level: config.logLevel });
const database = createDatabase(config.database);
try {
  await migrateOrThrow(database);
} catch (error) {
  logger.fatal({ err: error, database: describeDatabase(config.database) }, 'cannot migrate the database');
  await database.destroy();
  process.exit(1);
}

const api = createInternalApi(config, { database, logger });
let url: string;
try {
  ({ url } = await api.listen());
} catch (error) {
  logger.fatal({ err: error, host: config.host, port: config.port }, 'cannot listen');
  await database.destroy();
  process.exit(1);
}
logger.info({ url: `${url}/trpc`, database: describeDatabase(config.database) }, 'internal API listening');

let stopping = false;
async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down: finishing in-flight requests');
  try {
    await api.close();
    await database.destroy();
    logger.info('stopped');
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'unclean shutdown');
    process.exit(1);
  }
}
process.on('SIGTERM', (signal) => void stop(signal));
process.on('SIGINT', (signal) => void stop(signal));
