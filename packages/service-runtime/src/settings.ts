// Reading a process's settings from its environment: each app's config.ts asks for what it needs
// through one reader, which collects every problem (naming the variable, what was wrong and what
// was found) and throws them together. A variable that is set but empty is a problem, never a
// silent default.

/** The environment as the process received it. */
export type Env = Readonly<Record<string, string | undefined>>;

/** One bad variable. */
export interface SettingProblem {
  variable: string;
  problem: string;
}

/** A configuration the process cannot start with; its message names each bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    readonly problems: readonly SettingProblem[],
    app = 'service',
  ) {
    super(`invalid ${app} configuration:\n  ${problems.map((p) => `${p.variable}: ${p.problem}`).join('\n  ')}`);
  }
}

/**
 * A process's configuration, or its exit: on a ConfigError the message (every bad variable) goes to
 * stderr and the process exits 1; anything else is a bug and is thrown.
 *
 * @example const config = configOrExit(() => loadGatewayConfig(process.env));
 */
export function configOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

const show = (value: string): string => JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);

/**
 * Reads typed settings; every problem is collected, and `done()` throws them all at once.
 *
 * @example
 * const read = new SettingsReader(process.env);
 * const port = read.integer('GATEWAY_PORT', { default: 4000, min: 0, max: 65535 });
 * read.done('gateway'); // throws ConfigError("GATEWAY_PORT: must be a whole number, got \"abc\"")
 */
export class SettingsReader {
  readonly #env: Env;
  readonly #problems: SettingProblem[] = [];

  constructor(env: Env) {
    this.#env = env;
  }

  /** Records a problem found by the caller (a rule between two variables, a parser's refusal). */
  problem(variable: string, problem: string): void {
    this.#problems.push({ variable, problem });
  }

  /** The raw value: undefined when unset; a set-but-blank value is a problem (and reads as unset). */
  raw(name: string): string | undefined {
    const value = this.#env[name];
    if (value === undefined) return undefined;
    if (value.trim() === '') {
      this.problem(name, 'is set but empty: give it a value or unset it to use the default');
      return undefined;
    }
    return value;
  }

  /** A required text (at least `minLength` characters). */
  required(name: string, options: { minLength?: number; hint?: string } = {}): string {
    const value = this.raw(name);
    if (value === undefined) {
      if (this.#env[name] === undefined) this.problem(name, `is required${options.hint ? ` (${options.hint})` : ''}`);
      return '';
    }
    if (options.minLength !== undefined && value.length < options.minLength) {
      this.problem(name, `must be at least ${options.minLength} characters, got ${value.length}`);
    }
    return value;
  }

  /** An optional text; `pattern` (with its `hint`) checks its form. */
  optional(name: string, options: { pattern?: RegExp; hint?: string } = {}): string | undefined {
    const value = this.raw(name);
    if (value !== undefined && options.pattern && !options.pattern.test(value)) {
      this.problem(name, `${options.hint ?? `must match ${String(options.pattern)}`}, got ${show(value)}`);
      return undefined;
    }
    return value;
  }

  /** A text with a default. */
  text(name: string, defaultValue: string): string {
    return this.raw(name) ?? defaultValue;
  }

  /** A whole number from `min` to `max`. */
  integer(name: string, options: { default: number; min: number; max: number }): number {
    return this.optionalInteger(name, options) ?? options.default;
  }

  /** A whole number from `min` to `max`, or undefined when unset (or wrong: the problem is recorded). */
  optionalInteger(name: string, options: { min: number; max: number }): number | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (!/^\s*-?\d+\s*$/.test(value)) {
      this.problem(name, `must be a whole number from ${options.min} to ${options.max}, got ${show(value)}`);
      return undefined;
    }
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < options.min || n > options.max) {
      this.problem(name, `must be from ${options.min} to ${options.max}, got ${value.trim()}`);
      return undefined;
    }
    return n;
  }

  /** One of `values`. */
  oneOf<T extends string>(name: string, values: readonly T[], defaultValue: T): T {
    const value = this.raw(name);
    if (value === undefined) return defaultValue;
    if (!(values as readonly string[]).includes(value)) {
      this.problem(name, `must be one of ${values.join(', ')}, got ${show(value)}`);
      return defaultValue;
    }
    return value as T;
  }

  /** `true` or `false`. */
  boolean(name: string, defaultValue: boolean): boolean {
    return this.oneOf(name, ['true', 'false'], defaultValue ? 'true' : 'false') === 'true';
  }

  /** Throws a ConfigError naming every problem found so far. */
  done(app: string): void {
    if (this.#problems.length > 0) throw new ConfigError(this.#problems, app);
  }
}
