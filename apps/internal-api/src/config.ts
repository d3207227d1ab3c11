// The internal API's configuration, read from the environment here and nowhere else, validated at
// start-up. A bad value stops the process with a message naming every bad variable.
import { type DatabaseConfig, createCredentialCipher, parseDatabaseUrl } from '@pits/persistence';
import { z } from 'zod';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface InternalApiConfig {
  host: string;
  /** Never the partners' (gateway's) port; 0 picks a free one (tests). */
  port: number;
  database: DatabaseConfig;
  /** The internal service token every call must present as `Authorization: Bearer <token>`. */
  serviceToken: string;
  /** Key for credentials encrypted at rest (logistics), as `createCredentialCipher` accepts it. */
  credentialsKey: string;
  logLevel: LogLevel;
  /** How long shutdown waits for in-flight requests before cutting connections. */
  shutdownTimeoutMs: number;
}

/** A configuration the process cannot start with; `message` names each bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  /** One entry per bad variable. */
  readonly problems: { variable: string; problem: string }[];
  constructor(problems: { variable: string; problem: string }[]) {
    super(`invalid internal-api configuration:\n  ${problems.map((p) => `${p.variable}: ${p.problem}`).join('\n  ')}`);
    this.problems = problems;
  }
}

/** The gateway's default port, which the internal API must never share. */
const GATEWAY_DEFAULT_PORT = 4000;

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const schema = z.object({
  INTERNAL_API_HOST: z.string().min(1).default('127.0.0.1'),
  INTERNAL_API_PORT: int(0, 65535).default(4001),
  GATEWAY_PORT: int(0, 65535).default(GATEWAY_DEFAULT_PORT),
  DATABASE_URL: z.string().optional(),
  INTERNAL_API_TOKEN: z.string().min(24, 'must be at least 24 characters'),
  CREDENTIALS_KEY: z.string(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  SHUTDOWN_TIMEOUT_MS: int(0, 600_000).default(10_000),
});

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  if (issue.code === 'invalid_value') return `must be one of: ${issue.values.map(String).join(', ')}`;
  return issue.message;
}

/**
 * Reads and checks the environment; throws a `ConfigError` naming each bad variable.
 *
 * @example
 * const config = loadInternalApiConfig(process.env);
 * // INTERNAL_API_TOKEN unset -> ConfigError: "... INTERNAL_API_TOKEN: is required"
 */
export function loadInternalApiConfig(env: Record<string, string | undefined> = process.env): InternalApiConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const problems: { variable: string; problem: string }[] = [];
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push({ variable: String(issue.path[0] ?? ''), problem: describeIssue(issue) });
  }

  let database: DatabaseConfig | undefined;
  try {
    database = parseDatabaseUrl(present.DATABASE_URL);
  } catch (error) {
    problems.push({ variable: 'DATABASE_URL', problem: (error as Error).message });
  }

  if (present.CREDENTIALS_KEY !== undefined) {
    try {
      createCredentialCipher(present.CREDENTIALS_KEY);
    } catch (error) {
      problems.push({ variable: 'CREDENTIALS_KEY', problem: (error as Error).message });
    }
  }

  const e = parsed.data;
  if (e && e.INTERNAL_API_PORT !== 0 && e.INTERNAL_API_PORT === e.GATEWAY_PORT) {
    problems.push({ variable: 'INTERNAL_API_PORT', problem: `must differ from the partners' port (GATEWAY_PORT ${e.GATEWAY_PORT})` });
  }

  if (problems.length > 0 || !e || !database) throw new ConfigError(problems);
  return {
    host: e.INTERNAL_API_HOST,
    port: e.INTERNAL_API_PORT,
    database,
    serviceToken: e.INTERNAL_API_TOKEN,
    credentialsKey: e.CREDENTIALS_KEY,
    logLevel: e.LOG_LEVEL,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
  };
}
