// The internal API's configuration, read from the environment here and nowhere else, validated at
// start-up. A bad value stops the process with a message naming every bad variable.
import { DEFAULT_DATABASE_DEADLINES, type DatabaseConfig, createCredentialCipher, parseDatabaseUrl } from '@pits/persistence';
import { ConfigError, type Env, type OperatorEndpoint, SettingsReader, type ServiceSettings, readMetricsEndpoint, readServiceSettings } from '@pits/service-runtime';

export { LOG_LEVELS, type LogLevel } from '@pits/service-runtime';

/** The settings both HTTP services read (`ServiceSettings`), and the internal API's own. */
export interface InternalApiConfig extends ServiceSettings<DatabaseConfig> {
  host: string;
  /** Never the partners' (gateway's) port; 0 picks a free one (tests). */
  port: number;
  /** The internal service token every call must present as `Authorization: Bearer <token>`. */
  serviceToken: string;
  /** Key for credentials encrypted at rest (logistics), as `createCredentialCipher` accepts it. */
  credentialsKey: string;
  /** INTERNAL_API_METRICS_PORT / INTERNAL_API_METRICS_HOST (or METRICS_HOST): the operator port serving /metrics; null (unset) serves none. */
  metrics: OperatorEndpoint | null;
}

export { ConfigError };

/** The gateway's default port, which the internal API must never share. */
const GATEWAY_DEFAULT_PORT = 4000;

/**
 * Reads and checks the environment; throws a `ConfigError` naming each bad variable, what was
 * wrong with it and what was found.
 *
 * @example
 * const config = loadInternalApiConfig(process.env);
 * // INTERNAL_API_TOKEN unset -> ConfigError: "... INTERNAL_API_TOKEN: is required"
 */
export function loadInternalApiConfig(env: Env = process.env): InternalApiConfig {
  const read = new SettingsReader(env);
  const port = read.integer('INTERNAL_API_PORT', { default: 4001, min: 0, max: 65535 });
  const gatewayPort = read.integer('GATEWAY_PORT', { default: GATEWAY_DEFAULT_PORT, min: 0, max: 65535 });
  if (port !== 0 && port === gatewayPort) read.problem('INTERNAL_API_PORT', `must differ from the partners' port (GATEWAY_PORT ${gatewayPort})`);
  const credentialsKey = read.required('CREDENTIALS_KEY');
  if (credentialsKey !== '') {
    try {
      createCredentialCipher(credentialsKey);
    } catch (error) {
      read.problem('CREDENTIALS_KEY', (error as Error).message);
    }
  }
  const config: InternalApiConfig = {
    host: read.text('INTERNAL_API_HOST', '127.0.0.1'),
    port,
    serviceToken: read.required('INTERNAL_API_TOKEN', { minLength: 24 }),
    credentialsKey,
    ...readServiceSettings(read, { parse: parseDatabaseUrl, defaultDeadlines: DEFAULT_DATABASE_DEADLINES }),
    metrics: readMetricsEndpoint(read, 'INTERNAL_API', { INTERNAL_API_PORT: port, GATEWAY_PORT: gatewayPort }),
  };
  read.done('internal-api');
  return config;
}
