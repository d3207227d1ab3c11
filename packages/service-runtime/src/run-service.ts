// The process shell every entry point runs in: it owns the signals, the order of start-up (listen,
// then prepare while not ready, then ready) and of shutdown (stop serving, then release), and the
// exit code. An entry point passes in only what is its own: how to listen, how to prepare (migrate
// the database when it is reachable), what ready means, how to stop and what to release.
import type { Logger } from 'pino';

/** The signals that stop a service: an orchestrator's SIGTERM, a terminal's Ctrl-C. */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** The process the service runs in, as far as the shell uses it (tests pass a fake). */
export interface ServiceProcess {
  on(signal: StopSignal, listener: () => void): unknown;
  exit(code: number): void;
}

/** What the shell logs through: pino's logger, or anything with its four levels. */
export type ServiceLogger = Pick<Logger, 'info' | 'warn' | 'error' | 'fatal'>;

/** One service: what it does at each step of its life. */
export interface ServiceDefinition {
  logger: ServiceLogger;
  /** Fields added to the shell's fatal lines (the host and port, the database described), so an operator sees what failed. */
  context?: Record<string, unknown>;
  /** The shell's log lines, in the service's own words. */
  messages: {
    /** Fatal, when `listen` rejects (a port taken); the process exits 1. */
    listenFailed: string;
    /** Fatal, when `prepare` rejects before any stop; the process exits 1. */
    prepareFailed: string;
    /** When a stop signal arrives (with `{ signal }`). */
    stopping: string;
    /** When everything is stopped and released, just before exit 0; nothing when absent. */
    stopped?: string;
  };
  /** Opens the service's ports (and logs where). A rejection ends the process with exit 1. */
  listen(): Promise<void>;
  /**
   * Brings the service's dependencies up while it listens but is not ready (migrates the database
   * once it is reachable). `signal` aborts when a stop begins; what it does after that is ignored.
   * A rejection before any stop is logged fatal (`messages.prepareFailed`), the service is stopped and released, and the process exits 1.
   */
  prepare(signal: AbortSignal): Promise<unknown>;
  /** Prepared and not stopping: mark the service ready, start its work, say so. */
  ready(): void;
  /** Stops serving: finishes what is in flight. Called once, after `listen` settled; also after a failed `prepare`. */
  stop(): Promise<unknown>;
  /** Releases what the service holds (the database), always last, also after a failed `listen`. */
  release(): Promise<unknown>;
  /** Where the signals come from and the exit goes; the real process by default. */
  process?: ServiceProcess;
}

/**
 * Runs `service` until a stop signal or a failure, then exits the process: 0 after a graceful stop,
 * 1 when it could not listen, could not prepare, or did not stop cleanly. A second signal while
 * stopping changes nothing. Resolves with the exit code, once `exit` has been called.
 *
 * @example
 * void runService({
 *   logger,
 *   messages: { listenFailed: 'cannot listen', prepareFailed: 'cannot migrate the database', stopping: 'gateway stopping', stopped: 'gateway stopped' },
 *   listen: () => gateway.listen().then(({ url }) => logger.info({ url }, 'gateway listening')),
 *   prepare: (signal) => migrateWhenReachable(database, { signal }),
 *   ready: () => gateway.markReady(),
 *   stop: () => gateway.close(),
 *   release: () => database.destroy(),
 * });
 */
export function runService(service: ServiceDefinition): Promise<number> {
  const { logger, messages, context = {} } = service;
  const proc: ServiceProcess = service.process ?? process;
  const stopping = new AbortController();
  let exitCode: number | null = null;
  let resolveExited!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (resolveExited = resolve));

  /** The one exit: whichever path gets here first decides the code. */
  const exit = (code: number): void => {
    if (exitCode !== null) return;
    exitCode = code;
    proc.exit(code);
    resolveExited(code);
  };

  let listening: Promise<boolean> = Promise.resolve(false);

  const stop = async (signal: StopSignal): Promise<void> => {
    if (stopping.signal.aborted) return;
    stopping.abort();
    // Shutdown waits for the ports to be open (or to have failed: that path exits on its own).
    if (!(await listening) || exitCode !== null) return;
    logger.info({ signal }, messages.stopping);
    let clean = true;
    for (const step of [service.stop, service.release]) {
      try {
        await step();
      } catch (error) {
        logger.error({ err: error }, 'unclean shutdown');
        clean = false;
      }
    }
    if (!clean) return exit(1);
    if (messages.stopped) logger.info(messages.stopped);
    exit(0);
  };
  for (const signal of STOP_SIGNALS) proc.on(signal, () => void stop(signal));

  const run = async (): Promise<void> => {
    listening = service.listen().then(
      () => true,
      async (error: unknown) => {
        logger.fatal({ err: error, ...context }, messages.listenFailed);
        await service.release().catch(() => undefined);
        exit(1);
        return false;
      },
    );
    if (!(await listening) || stopping.signal.aborted) return;
    try {
      await service.prepare(stopping.signal);
    } catch (error) {
      if (stopping.signal.aborted) return;
      logger.fatal({ err: error, ...context }, messages.prepareFailed);
      // Closing is the stop's work from here on: a signal now finds it under way and does nothing.
      stopping.abort();
      await service.stop().catch((closeError: unknown) => logger.error({ err: closeError }, 'unclean shutdown'));
      await service.release().catch(() => undefined);
      return exit(1);
    }
    if (stopping.signal.aborted) return;
    service.ready();
  };
  run().catch(async (error: unknown) => {
    // A bug in a step (ready() threw): say so, release, and exit rather than serve half started.
    logger.fatal({ err: error, ...context }, 'service failed');
    await service.release().catch(() => undefined);
    exit(1);
  });
  return exited;
}
