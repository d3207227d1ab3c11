// The command line in-process: help for every command, exit codes 0, 1 and 2, the summary.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { type AddressInfo, type Socket, createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { metricSample } from '@pits/service-runtime';
import { type CliIo, EXIT_FATAL, EXIT_OK, EXIT_REJECTED, runCli } from './cli.js';

const dir = mkdtempSync(join(tmpdir(), 'pits-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], env: Record<string, string> = { DATABASE_URL: join(dir, 'cli.sqlite') }) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, env, cwd: dir };
  const code = await runCli(args, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

const HEADER = 'country,country_code,state,state_code,city,city_code,district,district_code,subdistrict,subdistrict_code,postcode,latitude,longitude';
const ROW = 'Indonesia,ID,Aceh,11,Kabupaten Aceh Selatan,11.01,Bakongan,11.01.01,Keude Bakongan,11.01.01.2001,23773,2.93109480,97.48458404';

describe('pits-import', () => {
  it.each([[['--help']], [['areas', '--help']], [['products', '-h']]])('prints help for %j', async (args) => {
    const { code, stdout } = await cli(args);
    expect(code).toBe(EXIT_OK);
    expect(stdout).toMatch(/^Usage: pits-import/);
  });

  it('refuses an unknown command, an unknown option and a missing input with exit code 2', async () => {
    expect((await cli(['regions'])).code).toBe(EXIT_FATAL);
    expect((await cli(['areas', '--fast', 'x.csv'])).stderr).toMatch(/Unknown option '--fast'/);
    expect(await cli(['products', 'x.csv'])).toMatchObject({ code: EXIT_FATAL, stderr: expect.stringMatching(/--tenant <id> is required/) });
  });

  it('imports, re-imports unchanged, and exits 1 when rows were rejected, naming the report', async () => {
    const good = join(dir, 'good.csv');
    writeFileSync(good, `${HEADER}\n${ROW}\n`);
    expect(await cli(['areas', good])).toMatchObject({ code: EXIT_OK, stdout: expect.stringMatching(/^areas: 1 rows read: 1 inserted, 0 updated, 0 unchanged, 0 rejected in/) });
    expect((await cli(['areas', good, '--dry-run'])).stdout).toMatch(/0 inserted, 0 updated, 1 unchanged, 0 rejected.*\ndry run: nothing was written/);
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, `${HEADER}\n${ROW.replace('23773', '2377')}\n`);
    const rejected = await cli(['areas', bad]);
    expect(rejected.code).toBe(EXIT_REJECTED);
    expect(rejected.stdout).toContain(`rejected rows: ${join(dir, 'bad.rejected.csv')}\n  each as it came in, with an "error" column; fix the values there and import that file again`);
    expect(readFileSync(join(dir, 'bad.rejected.csv'), 'utf8')).toBe(`${HEADER},error\n${ROW.replace('23773', '2377')},postcode: must be five digits (bad.csv line 2)\n`);
  });

  it('leaves the run’s metrics in a Prometheus text file with --metrics-file or IMPORT_METRICS_FILE, not on a dry run', async () => {
    expect((await cli(['areas', '--help'])).stdout).toContain('--metrics-file <path>');
    mkdirSync(join(dir, 'textfile'), { recursive: true });
    const input = join(dir, 'metered.csv');
    writeFileSync(input, `${HEADER}\n${ROW.replace('11.01.01.2001', '11.01.01.2002')}\n${ROW.replace('23773', 'x')}\n`);
    const file = join(dir, 'textfile', 'pits_import.prom');
    expect((await cli(['areas', input, '--metrics-file', 'textfile/pits_import.prom'])).code).toBe(EXIT_REJECTED);
    const text = readFileSync(file, 'utf8');
    const rows = (outcome: string) => metricSample(text, 'pits_import_rows_total', { app: 'importer', kind: 'areas', outcome });
    expect([rows('inserted'), rows('updated'), rows('unchanged'), rows('rejected')]).toEqual([1, 0, 0, 1]);
    expect(metricSample(text, 'pits_import_duration_seconds', { kind: 'areas' })).toBeGreaterThanOrEqual(0);
    expect(Math.abs(metricSample(text, 'pits_import_last_run_timestamp_seconds', { kind: 'areas' })! - Date.now() / 1000)).toBeLessThan(60);
    // Replaced whole on the next run (the environment variable this time); nothing left beside it.
    const env = { DATABASE_URL: join(dir, 'cli.sqlite'), IMPORT_METRICS_FILE: file };
    expect((await cli(['areas', input], env)).code).toBe(EXIT_REJECTED);
    expect(metricSample(readFileSync(file, 'utf8'), 'pits_import_rows_total', { outcome: 'unchanged' })).toBe(1);
    expect(readdirSync(join(dir, 'textfile'))).toEqual(['pits_import.prom']);
    // A dry run writes nothing there; a folder that is not there stops the run before it starts.
    rmSync(file);
    await cli(['areas', input, '--dry-run'], env);
    expect(existsSync(file)).toBe(false);
    expect(await cli(['areas', input, '--metrics-file', join(dir, 'nowhere', 'm.prom')])).toMatchObject({ code: EXIT_FATAL, stderr: expect.stringMatching(/^error: --metrics-file: cannot write into/) });
  });

  it('writes the report where --help says: next to the input with .rejected before the extension, or --report', async () => {
    const help = (await cli(['areas', '--help'])).stdout;
    expect(help).toContain('default: next to the input, named like it with\n                       .rejected before the extension: areas_id.csv -> areas_id.rejected.csv');
    expect(help).toContain('./idn-area-data.rejected.csv');
    mkdirSync(join(dir, 'in'), { recursive: true });
    const bad = join(dir, 'in', 'areas.v2.csv');
    writeFileSync(bad, `${HEADER}\n${ROW.replace('23773', '2377')}\n`);
    expect((await cli(['areas', 'in/areas.v2.csv'])).stdout).toContain(`rejected rows: ${join(dir, 'in', 'areas.v2.rejected.csv')}\n`);
    expect(existsSync(join(dir, 'in', 'areas.v2.rejected.csv'))).toBe(true);
    expect((await cli(['areas', bad, '--report', 'out/r.csv'])).stdout).toContain(`rejected rows: ${join(dir, 'out', 'r.csv')}\n`);
    expect(existsSync(join(dir, 'out', 'r.csv'))).toBe(true);
    expect(await cli(['areas', bad, '--report', bad])).toMatchObject({ code: EXIT_FATAL, stderr: expect.stringMatching(/^error: --report must not be the input file/) });
  });

  it('never replaces a report that is there (a dry run neither): the new one takes the next free name, and the summary says so', async () => {
    mkdirSync(join(dir, 'keep'), { recursive: true });
    const bad = join(dir, 'keep', 'areas.csv');
    writeFileSync(bad, `${HEADER}\n${ROW.replace('23773', '2377')}\n`);
    const first = join(dir, 'keep', 'areas.rejected.csv');
    expect((await cli(['areas', bad])).stdout).toContain(`rejected rows: ${first}\n`);
    writeFileSync(first, 'edited by the data team\n');
    const dry = await cli(['areas', bad, '--dry-run']);
    expect(dry.code).toBe(EXIT_REJECTED);
    expect(dry.stdout).toContain(`rejected rows: ${join(dir, 'keep', 'areas.rejected.2.csv')}\n  ${first} was already there and is kept as it is\n`);
    expect((await cli(['areas', bad])).stdout).toContain(`rejected rows: ${join(dir, 'keep', 'areas.rejected.3.csv')}\n`);
    expect(readFileSync(first, 'utf8')).toBe('edited by the data team\n');
    expect(readFileSync(join(dir, 'keep', 'areas.rejected.3.csv'), 'utf8')).toMatch(/^country,.*,error\n/);
    // An explicit --report is kept too.
    expect((await cli(['areas', bad, '--report', first])).stdout).toContain(`rejected rows: ${join(dir, 'keep', 'areas.rejected.4.csv')}\n`);
    expect(readFileSync(first, 'utf8')).toBe('edited by the data team\n');
  });

  it('stops on a missing input before the database is created or migrated', async () => {
    const target = join(dir, 'never', 'created.sqlite');
    const result = await cli(['areas', join(dir, 'no-such-areas.csv')], { DATABASE_URL: target });
    expect(result).toMatchObject({ code: EXIT_FATAL, stderr: `error: cannot read ${join(dir, 'no-such-areas.csv')}: no such file\ndatabase: sqlite:${target} (DATABASE_URL)\n` });
    expect(existsSync(target)).toBe(false);
    expect(existsSync(join(dir, 'never'))).toBe(false);
    expect((await cli(['products', '--tenant', '00000000-0000-4000-8000-000000000001', 'nothing.jsonl'], { DATABASE_URL: target })).code).toBe(EXIT_FATAL);
    expect(existsSync(target)).toBe(false);
  });

  it('names the database it used under every summary and error: the default one (npm start\'s) or DATABASE_URL\'s, never a user or password', async () => {
    const good = join(dir, 'named.csv');
    writeFileSync(good, `${HEADER}\n${ROW.replace('11.01.01.2001', '11.01.01.2003')}\n`);
    // Unset: the one default of every entry point, under the working directory (npm start's, in the repository root).
    const byDefault = await cli(['areas', good], {});
    expect(byDefault.code).toBe(EXIT_OK);
    expect(byDefault.stdout).toMatch(new RegExp(`^areas: 1 rows read: 1 inserted.*\\ndatabase: sqlite:${join(dir, 'data', 'pits.sqlite')} \\(the default: DATABASE_URL is not set\\)\\n$`));
    // An unknown tenant: the error says which database does not have it.
    const catalogue = join(dir, 'catalogue.csv');
    writeFileSync(catalogue, 'sku,name\nKOPI-1,Kopi\n');
    const tenant = '00000000-0000-4000-8000-00000000abcd';
    const unknown = await cli(['products', '--tenant', tenant, catalogue], {});
    expect(unknown).toMatchObject({ code: EXIT_FATAL, stdout: '', stderr: `error: tenant ${tenant} does not exist\ndatabase: sqlite:${join(dir, 'data', 'pits.sqlite')} (the default: DATABASE_URL is not set)\n` });
    const stock = await cli(['stock', '--tenant', tenant, catalogue], { DATABASE_URL: 'sqlite:other.sqlite' });
    expect(stock.stderr).toBe(`error: tenant ${tenant} does not exist\ndatabase: sqlite:${join(dir, 'other.sqlite')} (DATABASE_URL)\n`);
    // A wrong header, after the database was chosen.
    const wrong = join(dir, 'wrong-named.csv');
    writeFileSync(wrong, 'code,name\n11,Aceh\n');
    expect((await cli(['areas', wrong])).stderr).toMatch(new RegExp(`wrong header[\\s\\S]*\\ndatabase: sqlite:${join(dir, 'cli.sqlite')} \\(DATABASE_URL\\)\\n$`));
    // PostgreSQL: host, port and database; neither the user nor the password, wherever the URL carries them.
    const pg = await cli(['areas', wrong], { DATABASE_URL: 'postgres://data-team:s3cret@127.0.0.1:1/pits?password=s3cret' });
    expect(pg.stderr).toBe('error: cannot reach the database\ndatabase: postgres://127.0.0.1:1/pits (DATABASE_URL)\n');
  });

  it('reads a semicolon-separated file with differently capitalised column names, in another order', async () => {
    const names = HEADER.split(',');
    const order = [...names.keys()].reverse();
    const path = join(dir, 'excel.csv');
    writeFileSync(path, `${order.map((i) => names[i]!.toUpperCase()).join(';')}\r\n${order.map((i) => ROW.split(',')[i]).join(';')}\r\n`);
    expect(await cli(['areas', path])).toMatchObject({ code: EXIT_OK, stdout: expect.stringMatching(/^areas: 1 rows read: 0 inserted, 0 updated, 1 unchanged, 0 rejected/) });
  });

  it('stops with exit code 2 and a clear message on an unreadable file, a wrong header, or an unreachable database', async () => {
    expect(await cli(['areas', join(dir, 'missing.csv')])).toMatchObject({ code: EXIT_FATAL, stderr: expect.stringMatching(/^error: cannot read .*missing\.csv/) });
    const wrong = join(dir, 'wrong.csv');
    writeFileSync(wrong, 'code,name\n11,Aceh\n');
    expect(await cli(['areas', wrong])).toMatchObject({
      code: EXIT_FATAL,
      stderr: expect.stringMatching(/wrong header: unknown column "code"; unknown column "name"; none of the expected columns is there\.\nExpected columns \(all required.*\): country, country_code, state,/),
    });
    const near = join(dir, 'near.csv');
    writeFileSync(near, `${HEADER.replace('postcode', 'Post Code').replace(/,/g, ';')}\n`);
    expect(await cli(['areas', near])).toMatchObject({
      code: EXIT_FATAL,
      stderr: expect.stringMatching(/^error: .*near\.csv: wrong header \(read as semicolon-separated\): unknown column "Post Code" \(did you mean "postcode"\?\); missing column "postcode"\./),
    });
    const down = await cli(['areas', wrong], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(down).toMatchObject({ code: EXIT_FATAL, stderr: 'error: cannot reach the database\ndatabase: postgres://127.0.0.1:1/none (DATABASE_URL)\n' });
  });

  it('names a bad database setting and what was wrong with it, with exit code 2', async () => {
    const good = join(dir, 'good.csv');
    writeFileSync(good, `${HEADER}\n${ROW}\n`);
    const result = await cli(['areas', good], { DATABASE_URL: join(dir, 'cli.sqlite'), DB_STATEMENT_TIMEOUT_MS: 'soon' });
    expect(result.code).toBe(EXIT_FATAL);
    expect(result.stderr).toContain('DB_STATEMENT_TIMEOUT_MS: must be a whole number from 100 to 600000, got "soon"');
  });

  it('gives up on a database that does not answer within DB_CONNECT_TIMEOUT_MS, with exit code 2', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
    });
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as AddressInfo;
    try {
      const good = join(dir, 'good.csv');
      writeFileSync(good, `${HEADER}\n${ROW}\n`);
      const started = performance.now();
      const result = await cli(['areas', good], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test`, DB_CONNECT_TIMEOUT_MS: '300' });
      expect(result.code).toBe(EXIT_FATAL);
      expect(result.stderr).toBe(`error: cannot reach the database\ndatabase: postgres://127.0.0.1:${port}/test (DATABASE_URL)\n`);
      expect(performance.now() - started).toBeLessThan(3000);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
