// The command line: `pits-import areas …`, `pits-import products …` and `pits-import stock …`,
// each with --help.
// Exit codes: 0 every row imported, 1 some rows rejected (the rest imported), 2 fatal.
import { access, constants, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  DATABASE_URL_FORMS, type Database, type DatabaseConfig, createDatabase, databaseIdentity, describeDatabase, isDatabaseReachable, isDatabaseUnavailable, migrateOrThrow,
} from '@pits/persistence';
import { ConfigError } from '@pits/service-runtime';
import { importAreasFile } from './commands/import-areas.js';
import { importIdnAreaData } from './commands/import-idn-area-data.js';
import { importProductsFile, productFormatOf } from './commands/import-products.js';
import { FatalImportError, type ImportContext, type ImportSummary } from './commands/import-run.js';
import { importStockFile } from './commands/import-stock.js';
import { type ImporterConfig, loadImporterConfig } from './config.js';
import { type ProgressTarget, createProgress } from './progress/progress-reporter.js';
import { writeImportMetrics } from './report/import-metrics.js';
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
  --report <path>      where rejected rows go (default: next to the input, named like it with
                       .rejected before the extension: areas_id.csv -> areas_id.rejected.csv)
  --metrics-file <path>  after a run (not a dry run), write its metrics there as a Prometheus
                       text file for node_exporter's textfile collector, replaced atomically:
                       pits_import_rows_total{kind,outcome} (inserted, updated, unchanged,
                       rejected), pits_import_duration_seconds, pits_import_last_run_timestamp_seconds
                       (default: IMPORT_METRICS_FILE when set; its folder must exist)
  -h, --help           show this help

A CSV file's columns may come in any order, separated by commas, semicolons or tabs (taken from
the header line); column names are matched ignoring letter case and surrounding spaces.

Rejected rows are written to the report, only when there are any: each row as it came in (the
input's columns, order and delimiter; for JSON lines, the object) plus an "error" column with
each problem and the input line. Fix the values in the report and import the report itself:
an "error" column is ignored on import. A report that is already there is never replaced (a dry
run included): the new one takes the next free name (areas_id.rejected.2.csv, .3, ...), and
the summary prints where it went.

The database is DATABASE_URL (${DATABASE_URL_FORMS}); unset,
the default under the current folder, which in the repository root is the one npm start serves.
It is migrated first, and the summary and every error name it (a file's path; a server's host,
port and database, never its user or password).

Exit code 0: every row imported; 1: some rows rejected, the rest imported; 2: nothing could be
done (unreadable file, wrong header, database unreachable, unknown tenant).`;

const HELP = {
  main: `Usage: pits-import <command> [options]

Commands:
  areas <file>                             areas from the canonical CSV (header of areas_id.csv)
  areas --format idn-area-data [<dir>]     areas from the idn-area-data package layout
  products --tenant <id> <file>            a tenant's products from CSV or JSON lines
  stock --tenant <id> <file>               a tenant's opening stock (with lots) from CSV

Run \`pits-import <command> --help\` for a command's options.`,
  areas: `Usage: pits-import areas [--format canonical] <file>
       pits-import areas --format idn-area-data [<dir>]

Upserts areas (villages with their province, city and district) by subdistrict code; a re-run of
the same file changes nothing.

  <file>    a CSV with the columns
            country,country_code,state,state_code,city,city_code,district,district_code,
            subdistrict,subdistrict_code,postcode,latitude,longitude
  <dir>     a folder with provinces.csv, regencies.csv, districts.csv and villages.csv as the
            idn-area-data npm package ships them (default: the installed package). That source
            has no postcodes or coordinates: new areas get an empty postcode and 0.00000000,
            existing ones keep theirs. Its report (default ./idn-area-data.rejected.csv in the
            current directory) has the columns code,parent_code,name,error.
  --format canonical | idn-area-data   (default canonical)
${COMMON_HELP}`,
  products: `Usage: pits-import products --tenant <id> <file>

Upserts a tenant's products by SKU. <file> is CSV with a header of Product field names, or JSON
lines (one object per line; .jsonl, .ndjson or .json; its report is JSON lines too). sku and
name are required; the fields:
  sku, name, category_id, barcode, description, brand, product_type, published_price,
  cost_price, weight, width, height, length (decimals with at most two places), status,
  is_bundle, is_managed_by_fulfillment, advance_qc, production_batch, cold_storage (true or false,
  in any letter case; 1/0 and yes/no are refused),
  fulfillment_manage_by, outbound_expired, inbound_expired (integers), outer_barcode

  --tenant <id>          the tenant the products belong to (must exist)
  --format csv | jsonl   (default: from the file's extension)

A row that would change production_batch of a product that has stock, active holds, open
transfers or pending adjustments is rejected and the product left as it is; a new
outbound_expired moves the days the product's lots turn unsellable.
${COMMON_HELP}`,
  stock: `Usage: pits-import stock --tenant <id> <file>

Loads a tenant's opening balances, for a merchant moving from another warehouse system, as
opening stock (good units) recorded by "importer". <file> is CSV with the header
  location_code,sku,lot_number,expiry_date,production_date,good
(location_code, sku and good required; the lot columns may be left out when no product has lots):
  location_code    the code of one of the tenant's locations
  sku              the exact SKU of one of the tenant's products
  lot_number       empty for a product without lots; required for a lot-tracked product
                   (production_batch true): 1 to 64 letters, digits, ".", "_", "/" and "-",
                   case counting, nothing trimmed. A lot number the product does not have yet
                   creates the lot.
  expiry_date      YYYY-MM-DD (a WIB calendar day). Required for a new lot when the product has
                   inbound_expired or outbound_expired above 0; for a known lot empty or its own.
  production_date  YYYY-MM-DD, optional, not after the expiry date
  good             the units on the shelf: above 0, at most 4 decimal places (12, 12.5)
Dates must be empty when lot_number is. One row per location, SKU and lot.

Each balance is recorded once: its ledger rows (cause "opening") carry the reference
stock-import/L<location id>/P<product id>[/<lot number>], one per location, product and lot.
Importing the same file again adds nothing (those rows count as unchanged), so a run that
stopped halfway, or a fixed report, can be imported as it is. A row whose balance was imported
before with another quantity is rejected: correct stock with an adjustment or a stock count.
Opening stock is a count, not a receipt: inbound_expired does not apply.

  --tenant <id>          the tenant the stock belongs to (must exist)
${COMMON_HELP}`,
};

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  'dry-run': { type: 'boolean' },
  'batch-size': { type: 'string' },
  report: { type: 'string' },
  'metrics-file': { type: 'string' },
  format: { type: 'string' },
  tenant: { type: 'string' },
} as const;

class UsageError extends Error {}

/**
 * The line that says which database a run used, under its summary and under every error once the
 * configuration is read: without it, an import into another file than the one the apps serve
 * looked like a success, and an unknown tenant like a wrong id. The name is the database's
 * password-free identity (a file's absolute path; a server's host, port, database and schema,
 * without user or password), and what chose it.
 *
 * @example databaseLine(config, {}) // 'database: /srv/pits/data/<file> (the default: DATABASE_URL is not set)\n'
 */
export function databaseLine(config: DatabaseConfig, env: CliIo['env']): string {
  let name: string;
  try {
    name = databaseIdentity(config);
  } catch {
    // A URL the identity cannot read (it reached no database either): the log form, password masked.
    name = describeDatabase(config);
  }
  return `database: ${name} (${env.DATABASE_URL === undefined ? 'the default: DATABASE_URL is not set' : 'DATABASE_URL'})\n`;
}

function formatSummary(s: ImportSummary, run: PlannedRun, reportPath: string, database: string): string {
  const rate = Math.round(s.read / Math.max(s.seconds, 0.001)).toLocaleString('en-US');
  const lines = [
    `${s.command}: ${s.read} rows read: ${s.inserted} inserted, ${s.updated} updated, ${s.unchanged} unchanged, ${s.rejected} rejected in ${s.seconds.toFixed(2)} s (${rate} rows/s)`,
  ];
  if (s.dryRun) lines.push('dry run: nothing was written');
  lines.push(database.trimEnd());
  if (s.rejected > 0) {
    lines.push(`rejected rows: ${reportPath}`);
    if (reportPath !== run.reportPath) lines.push(`  ${run.reportPath} was already there and is kept as it is`);
    if (run.reimportable) lines.push('  each as it came in, with an "error" column; fix the values there and import that file again');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Where rejected rows go unless --report says otherwise: next to the input, named like it with
 * `.rejected` before the extension. The report is never compressed: a `.gz` input's report is
 * named after the file inside.
 *
 * @example
 * defaultReportPath('/data/areas_id.csv') // '/data/areas_id.rejected.csv'
 * defaultReportPath('/data/areas_id.csv.gz') // '/data/areas_id.rejected.csv'
 * defaultReportPath('/data/catalogue.jsonl') // '/data/catalogue.rejected.jsonl'
 */
export function defaultReportPath(input: string, fallbackExtension = '.csv'): string {
  const plain = input.endsWith('.gz') ? input.slice(0, -'.gz'.length) : input;
  const extension = extname(plain);
  return join(dirname(plain), `${basename(plain, extension)}.rejected${extension || fallbackExtension}`);
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
  if (command !== 'areas' && command !== 'products' && command !== 'stock') {
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
  let config: ImporterConfig | undefined;
  try {
    const batchSize = values['batch-size'] === undefined ? 2000 : Number(values['batch-size']);
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 50_000) throw new UsageError('--batch-size must be an integer from 1 to 50000');
    if (rest.length > 1) throw new UsageError(`one input at a time, got ${rest.length}`);
    const input = rest[0] === undefined ? undefined : resolve(io.cwd, rest[0]);
    const run = planCommand(command, values, input, io.cwd);
    if (values.report !== undefined) run.reportPath = resolve(io.cwd, values.report);
    if (run.reportPath === input) throw new UsageError('--report must not be the input file');

    // Read (not opened) first, so that even a missing input names the database it would have gone to.
    config = loadImporterConfig(io.env, io.cwd);
    // Before the database is opened: a missing input must not leave a new, migrated database behind.
    if (input !== undefined) await checkInput(input);
    const metricsFile = values['metrics-file'] === undefined ? config.metricsFile : resolve(io.cwd, values['metrics-file']);
    if (metricsFile !== null) await checkMetricsFolder(metricsFile);
    // A connection lost mid-import is replaced; say so where the operator reads.
    database = createDatabase(config.database, { logger: { warn: (_details, message) => void io.stderr.write(`warning: ${message}\n`) } });
    if (!(await isDatabaseReachable(database))) throw new FatalImportError('cannot reach the database');
    await migrateOrThrow(database);

    const report = createRejectReport(run.reportPath);
    const context: ImportContext = { database, batchSize, dryRun: values['dry-run'] === true, report, progress: createProgress(command, io.stderr) };
    let summary: ImportSummary;
    try {
      summary = await run.execute(context);
    } finally {
      await report.close();
    }
    io.stdout.write(formatSummary(summary, run, report.path, databaseLine(config.database, io.env)));
    if (metricsFile !== null && !summary.dryRun) {
      // The rows are in by now: a metrics file that cannot be written is worth a warning, not a failed import.
      await writeImportMetrics(metricsFile, command, summary, new Date()).catch((error: unknown) =>
        io.stderr.write(`warning: could not write the metrics file ${metricsFile}: ${error instanceof Error ? error.message : String(error)}\n`),
      );
    }
    return summary.rejected > 0 ? EXIT_REJECTED : EXIT_OK;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof UsageError) {
      io.stderr.write(`error: ${message}\n\n${HELP[command]}\n`);
      return EXIT_FATAL;
    }
    if (error instanceof FatalImportError || error instanceof ConfigError) io.stderr.write(`error: ${message}\n`);
    else if (isDatabaseUnavailable(error)) {
      io.stderr.write(`error: the database became unavailable (${message}); every finished batch is kept: run the same command again to finish\n`);
    } else io.stderr.write(`error: the import stopped: ${message}\n`);
    if (config !== undefined) io.stderr.write(databaseLine(config.database, io.env));
    return EXIT_FATAL;
  } finally {
    await database?.destroy();
  }
}

/** The input must be there and readable before anything else happens. */
async function checkInput(path: string): Promise<void> {
  try {
    await access(path, constants.R_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FatalImportError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (error instanceof Error ? error.message : String(error))}`);
  }
}

/** The metrics file's folder must be there and writable before the import starts, not found missing at its end. */
async function checkMetricsFolder(path: string): Promise<void> {
  try {
    if (!(await stat(dirname(path))).isDirectory()) throw new Error('not a folder');
    await access(dirname(path), constants.W_OK);
  } catch (error) {
    throw new UsageError(`--metrics-file: cannot write into ${dirname(path)} (${error instanceof Error ? error.message : String(error)})`);
  }
}

interface PlannedRun {
  /** Where rejected rows go. */
  reportPath: string;
  /** The report can be fixed and imported again with the same command (not so for idn-area-data's four joined files). */
  reimportable: boolean;
  execute(context: ImportContext): Promise<ImportSummary>;
}

function planCommand(command: 'areas' | 'products' | 'stock', values: { format?: string | undefined; tenant?: string | undefined }, input: string | undefined, cwd: string): PlannedRun {
  if (command === 'areas') {
    if (values.tenant !== undefined) throw new UsageError('--tenant is for products');
    const format = values.format ?? 'canonical';
    if (format === 'idn-area-data') {
      // The default folder is inside node_modules: the report goes where the command runs.
      return { reportPath: join(cwd, 'idn-area-data.rejected.csv'), reimportable: false, execute: (c) => (input ? importIdnAreaData(c, input) : importIdnAreaData(c)) };
    }
    if (format !== 'canonical') throw new UsageError(`--format must be canonical or idn-area-data, not "${format}"`);
    if (!input) throw new UsageError('name the area file');
    return { reportPath: defaultReportPath(input), reimportable: true, execute: (c) => importAreasFile(c, input) };
  }
  if (!values.tenant) throw new UsageError('--tenant <id> is required');
  const tenant = values.tenant;
  if (command === 'stock') {
    if (values.format !== undefined && values.format !== 'csv') throw new UsageError(`--format must be csv for stock, not "${values.format}"`);
    if (!input) throw new UsageError('name the stock file');
    return { reportPath: defaultReportPath(input), reimportable: true, execute: (c) => importStockFile(c, tenant, input) };
  }
  if (!input) throw new UsageError('name the product file');
  const format = values.format;
  if (format !== undefined && format !== 'csv' && format !== 'jsonl') throw new UsageError(`--format must be csv or jsonl, not "${format}"`);
  const reportPath = defaultReportPath(input, (format ?? productFormatOf(input)) === 'jsonl' ? '.jsonl' : '.csv');
  return { reportPath, reimportable: true, execute: (c) => (format ? importProductsFile(c, tenant, input, format) : importProductsFile(c, tenant, input)) };
}
