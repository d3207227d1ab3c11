// The command line in-process: help for every command, exit codes 0, 1 and 2, the summary.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
    expect(rejected.stdout).toContain(`rejected rows: ${join(dir, 'bad.csv.rejected.csv')}`);
  });

  it('stops with exit code 2 and a clear message on an unreadable file, a wrong header, or an unreachable database', async () => {
    expect(await cli(['areas', join(dir, 'missing.csv')])).toMatchObject({ code: EXIT_FATAL, stderr: expect.stringMatching(/^error: cannot read .*missing\.csv/) });
    const wrong = join(dir, 'wrong.csv');
    writeFileSync(wrong, 'code,name\n11,Aceh\n');
    expect(await cli(['areas', wrong])).toMatchObject({ code: EXIT_FATAL, stderr: expect.stringMatching(/wrong header: expected "country,country_code/) });
    const down = await cli(['areas', wrong], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(down).toMatchObject({ code: EXIT_FATAL, stderr: expect.stringMatching(/^error: cannot reach the database postgres:\/\/nobody@127\.0\.0\.1:1\/none/) });
  });
});
