// The command line: `pits-import areas …` and `pits-import products …`, each with --help.
// Exit codes: 0 every row imported, 1 some rows rejected (the rest imported), 2 fatal.
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type Database, createDatabase, describeDatabase, isDatabaseReachable, migrateOrThrow } from '@pits/persistence';
import { importAreasFile } from './commands/import-areas.js';
import { importIdnAreaData } from './commands/import-idn-area-data.js';
import { importProductsFile } from './commands/import-products.js';
import { FatalImportError, type ImportContext, type ImportSummary } from './commands/import-run.js';
import { loadImporterConfig } from './config.js';
import { type ProgressTarget, createProgress } from './progress/progress-reporter.js';
import { createRejectReport } from './report/reject-report.js';

export const EXIT_OK = 0;
export const EXIT_REJECTED = 1;
export const EXIT_FATAL = 2;

export interface CliIo {
  stdout: { write(text: string): unknown };
  /** Progress and errors; a terminal gets a progress bar. */
  stderr: ProgressTarget;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

const COMMON_HELP = `
Options:
  --dry-run            check every row and count what would change, write nothing
  --batch-size <n>     rows per transaction (default 2000)
  --report <path>      where rejected rows go (default ./<input name>.rejected.csv)
  -h, --help           show this help

The database is DATABASE_URL (postgres://… or a SQLite path; default ./data/pits.sqlite); it is
migrated first. Exit code 0: every row imported; 1: some rows rejected, the rest imported;
2: nothing could be done (unreadable file, wrong header, database unreachable, unknown tenant).`;

const HELP = {
  main: `Usage: pits-import <command> [options]

Commands:
  areas <file>                             areas from the canonical CSV (header of areas_id.csv)
  areas --format idn-area-data [<dir>]     areas from the idn-area-data package layout
  products --tenant <id> <file>            a tenant's products from CSV or JSON lines

Run \`pits-import <command> --help\` for a command's options.`,
  areas: `Usage: pits-import areas [--format canonical] <file>
       pits-import areas --format idn-area-data [<dir>]

Upserts areas (villages with their province, city and district) by subdistrict code; a re-run of
the same file changes nothing.

  <file>    a CSV with the header
            country,country_code,state,state_code,city,city_code,district,district_code,
            subdistrict,subdistrict_code,postcode,latitude,longitude
  <dir>     a folder with provinces.csv, regencies.csv, districts.csv and villages.csv as the
            idn-area-data npm package ships them (default: the installed package). That source
            has no postcodes or coordinates: new areas get an empty postcode and 0.00000000,
            existing ones keep theirs.
  --format canonical | idn-area-data   (default canonical)
${COMMON_HELP}`,
  products: `Usage: pits-import products --tenant <id> <file>

Upserts a tenant's products by SKU. <file> is CSV with a header of Product field names, or JSON
lines (one object per line; .jsonl, .ndjson or .json). sku and name are required; the fields:
  sku, name, category_id, barcode, description, brand, product_type, published_price,
  cost_price, weight, width, height, length (decimals with at most two places), status,
  is_bundle, is_managed_by_fulfillment, advance_qc, production_batch, cold_storage (true/false),
  fulfillment_manage_by, outbound_expired, inbound_expired (integers), outer_barcode

  --tenant <id>          the tenant the products belong to (must exist)
  --format csv | jsonl   (default: from the file's extension)
${COMMON_HELP}`,
};

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  'dry-run': { type: 'boolean' },
  'batch-size': { type: 'string' },
  report: { type: 'string' },
  format: { type: 'string' },
  tenant: { type: 'string' },
} as const;

class UsageError extends Error {}

function formatSummary(s: ImportSummary, reportPath: string): string {
  const rate = Math.round(s.read / Math.max(s.seconds, 0.001)).toLocaleString('en-US');
  const lines = [
    `${s.command}: ${s.read} rows read: ${s.inserted} inserted, ${s.updated} updated, ${s.unchanged} unchanged, ${s.rejected} rejected in ${s.seconds.toFixed(2)} s (${rate} rows/s)`,
  ];
  if (s.dryRun) lines.push('dry run: nothing was written');
  if (s.rejected > 0) lines.push(`rejected rows: ${reportPath}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Runs one command line and returns its exit code; never calls process.exit.
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n\n${HELP.main}\n`);
    return EXIT_FATAL;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (command !== 'areas' && command !== 'products') {
    if (command === undefined && values.help) {
      io.stdout.write(`${HELP.main}\n`);
      return EXIT_OK;
    }
    io.stderr.write(`${command === undefined ? 'error: name a command' : `error: unknown command "${command}"`}\n\n${HELP.main}\n`);
    return EXIT_FATAL;
  }
  if (values.help) {
    io.stdout.write(`${HELP[command]}\n`);
    return EXIT_OK;
  }

  let database: Database | undefined;
  try {
    const batchSize = values['batch-size'] === undefined ? 2000 : Number(values['batch-size']);
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 50_000) throw new UsageError('--batch-size must be an integer from 1 to 50000');
    if (rest.length > 1) throw new UsageError(`one input at a time, got ${rest.length}`);
    const input = rest[0] === undefined ? undefined : resolve(io.cwd, rest[0]);
    const run = planCommand(command, values, input);
    const reportPath = resolve(io.cwd, values.report ?? `${run.label}.rejected.csv`);

    const config = loadImporterConfig(io.env, io.cwd);
    database = createDatabase(config.database);
    if (!(await isDatabaseReachable(database))) throw new FatalImportError(`cannot reach the database ${describeDatabase(config.database)}`);
    await migrateOrThrow(database);

    const report = createRejectReport(reportPath);
    const context: ImportContext = { database, batchSize, dryRun: values['dry-run'] === true, report, progress: createProgress(command, io.stderr) };
    let summary: ImportSummary;
    try {
      summary = await run.execute(context);
    } finally {
      await report.close();
    }
    io.stdout.write(formatSummary(summary, reportPath));
    return summary.rejected > 0 ? EXIT_REJECTED : EXIT_OK;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof UsageError) io.stderr.write(`error: ${message}\n\n${HELP[command]}\n`);
    else if (error instanceof FatalImportError) io.stderr.write(`error: ${message}\n`);
    else io.stderr.write(`error: the import stopped: ${message}\n`);
    return EXIT_FATAL;
  } finally {
    await database?.destroy();
  }
}

interface PlannedRun {
  /** Names the default report file. */
  label: string;
  execute(context: ImportContext): Promise<ImportSummary>;
}

function planCommand(command: 'areas' | 'products', values: { format?: string | undefined; tenant?: string | undefined }, input: string | undefined): PlannedRun {
  if (command === 'areas') {
    if (values.tenant !== undefined) throw new UsageError('--tenant is for products');
    const format = values.format ?? 'canonical';
    if (format === 'idn-area-data') return { label: 'idn-area-data', execute: (c) => (input ? importIdnAreaData(c, input) : importIdnAreaData(c)) };
    if (format !== 'canonical') throw new UsageError(`--format must be canonical or idn-area-data, not "${format}"`);
    if (!input) throw new UsageError('name the area file');
    return { label: basename(input), execute: (c) => importAreasFile(c, input) };
  }
  if (!values.tenant) throw new UsageError('--tenant <id> is required');
  const tenant = values.tenant;
  if (!input) throw new UsageError('name the product file');
  const format = values.format;
  if (format !== undefined && format !== 'csv' && format !== 'jsonl') throw new UsageError(`--format must be csv or jsonl, not "${format}"`);
  return { label: basename(input), execute: (c) => (format ? importProductsFile(c, tenant, input, format) : importProductsFile(c, tenant, input)) };
}
