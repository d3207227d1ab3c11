// tsx tools/bench/src/instruction-bench.ts <old tree> <old label> <main label> — the instruction
// mode of bench:compare (BENCH_COMPARE_INSTRUCTIONS=1), which prepares the old tree and builds both
// gateways first. Each tree's gateway (`apps/gateway/dist/main.js`, with its own defaults) runs
// under valgrind's callgrind on a database of its own, migrated and seeded by that tree's bench as
// in the paired mode, with `node --single-threaded` so V8 compiles and collects on the thread
// that counts them rather than on helpers that run when they please. Both sides run at once; each
// case is warmed up, then counted round by round (callgrind_control zeroes the counters before a
// round and dumps them after it), one request at a time on one connection, with that tree's own
// `requestsFor`. A count of instructions does not move with the machine's load or speed, so a few
// per cent between two builds is a finding here where CPU time cannot show it; it leaves out the
// kernel's share (socket and file calls), which CPU time includes. Arithmetic: instruction-model.ts.
//
// Environment: BENCH_DIALECTS (sqlite,postgres), BENCH_CASES (create,detail,list,approve,count),
// BENCH_INSTRUCTION_WARMUP (3000 requests per case), BENCH_INSTRUCTION_REQUESTS (1500 per round),
// BENCH_INSTRUCTION_ROUNDS (3), BENCH_PG_URL (as bench:inventory), BENCH_INSTRUCTION_ANNOTATIONS (a
// folder: each round's per-function counts are kept there as `<dialect>-<case>-<side>-<round>.txt`,
// callgrind_annotate's output, for a diff function by function). valgrind must be installed.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { ROOT, freePort } from './bench-harness.js';
import { MEAN_CASES } from './compare-model.js';
import { type CaseCounts, type RoundCount, countRound, dumpNumber, instructionTable } from './instruction-model.js';
import { type SeededSide, type SideName, seedSide } from './tree-bench.js';

const run = promisify(execFile);
const [oldTree, oldLabel, mainLabel] = process.argv.slice(2);
if (!oldTree || !oldLabel || !mainLabel) throw new Error('usage: instruction-bench.ts <old tree> <old label> <main label>');
const dialects = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim()).filter(Boolean);
const cases = (process.env.BENCH_CASES ?? MEAN_CASES.join(',')).split(',').map((c) => c.trim()).filter(Boolean);
const whole = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name}: a whole number of at least 1, got ${process.env[name]}`);
  return value;
};
const warmUpRequests = whole('BENCH_INSTRUCTION_WARMUP', 3000);
const roundRequests = whole('BENCH_INSTRUCTION_REQUESTS', 1500);
const rounds = whole('BENCH_INSTRUCTION_ROUNDS', 3);
const pgAdminUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const annotations = process.env.BENCH_INSTRUCTION_ANNOTATIONS;
if (annotations) mkdirSync(annotations, { recursive: true });

interface Side extends SeededSide {
  side: SideName;
  dialect: string;
  url: string;
  gateway: ChildProcess;
}

/** Waits until the gateway under valgrind answers /readyz (it starts tens of times slower there). */
async function ready(url: string, gateway: ChildProcess): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (gateway.exitCode !== null) throw new Error(`the gateway under valgrind exited with ${gateway.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error('the gateway under valgrind did not come up in 5 minutes');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function startSide(side: SideName, tree: string, dialect: string): Promise<Side> {
  const seeded = await seedSide('instructions', side, tree, dialect, pgAdminUrl);
  const port = await freePort();
  const gateway = spawn(
    'valgrind',
    ['--tool=callgrind', `--callgrind-out-file=${join(seeded.dir, 'callgrind.out')}`, '--smc-check=all-non-file', '--cache-sim=no', '--branch-sim=no', process.execPath, '--single-threaded', join(tree, 'apps/gateway/dist/main.js')],
    {
      cwd: tree,
      env: { ...process.env, DATABASE_URL: seeded.databaseUrl, CREDENTIALS_KEY: seeded.bench.load.CREDENTIALS_KEY, LOG_LEVEL: 'warn', GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: String(port), RATE_LIMIT_SMALL: '1000000' },
      stdio: ['ignore', 'ignore', 'ignore'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await ready(url, gateway);
  } catch (error) {
    gateway.kill('SIGKILL');
    await seeded.cleanup();
    throw error;
  }
  return { ...seeded, side, dialect, url, gateway };
}

/** `amount` requests of `kind`, one at a time; every answer must be 2xx. */
async function send(s: Side, kind: string, amount: number, pool: { entries: unknown[]; next: number }): Promise<void> {
  // Under valgrind and a busy machine one answer can take seconds: autocannon's 10 s default would count it an error.
  const result = await autocannon({ url: s.url, connections: 1, amount, timeout: 120, requests: s.bench.load.requestsFor(kind, s.tenants, pool) });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${s.side} ${kind}: ${result.non2xx} non-2xx answers and ${result.errors} errors in ${amount} requests`);
}

/** The newest dump callgrind wrote for `s`: callgrind.out.<n>, numbered from 1 in the order asked. */
function newestDump(s: Side): string {
  const numbered = readdirSync(s.dir).filter((f) => dumpNumber(f) !== null);
  const newest = numbered.sort((a, b) => dumpNumber(a)! - dumpNumber(b)!).at(-1);
  if (!newest) throw new Error(`${s.side}: callgrind wrote no dump`);
  return join(s.dir, newest);
}

/** One counted round: counters zeroed, the requests, counters dumped and summed by share. */
async function countedRound(s: Side, kind: string, round: number, pool: { entries: unknown[]; next: number }): Promise<RoundCount> {
  const pid = String(s.gateway.pid);
  await run('callgrind_control', ['--zero', pid]);
  await send(s, kind, roundRequests, pool);
  await run('callgrind_control', ['--dump', pid]);
  const dump = newestDump(s);
  const { stdout } = await run('callgrind_annotate', ['--inclusive=no', '--threshold=100', dump], { maxBuffer: 256 * 1024 * 1024 });
  rmSync(dump);
  if (annotations) writeFileSync(join(annotations, `${s.dialect}-${kind}-${s.side}-${round + 1}.txt`), stdout);
  return countRound(stdout);
}

async function countCase(s: Side, kind: string): Promise<RoundCount[]> {
  const needed = warmUpRequests + rounds * roundRequests;
  const pool = { entries: kind === 'approve' ? await s.bench.seed.writePendingPool(s.writer, s.tenants, needed, new Date(), 11) : [], next: 0 };
  await send(s, kind, warmUpRequests, pool);
  const counted: RoundCount[] = [];
  for (let round = 0; round < rounds; round += 1) counted.push(await countedRound(s, kind, round, pool));
  return counted;
}

for (const dialect of dialects) {
  const sides: Side[] = [];
  const counts: CaseCounts[] = [];
  try {
    const started = await Promise.allSettled([startSide('old', oldTree, dialect), startSide('main', ROOT, dialect)]);
    for (const result of started) if (result.status === 'fulfilled') sides.push(result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    for (const kind of cases) {
      const [old, main] = await Promise.all(sides.map((s) => countCase(s, kind)));
      counts.push({ kind, requests: roundRequests, old: old!, main: main! });
      console.log(`[${dialect}] ${kind} counted`);
    }
  } finally {
    for (const s of sides) s.gateway.kill('SIGTERM');
    await Promise.all(sides.map((s) => new Promise((resolve) => (s.gateway.exitCode !== null ? resolve(null) : s.gateway.once('exit', resolve)))));
    for (const s of sides) await s.cleanup().catch((error: unknown) => console.log(`[${dialect}] cleanup of ${s.side}: ${(error as Error).message}`));
  }
  const label = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  console.log(`\n${instructionTable(label, counts, { main: mainLabel, old: oldLabel }, MEAN_CASES).join('\n')}\n`);
}
