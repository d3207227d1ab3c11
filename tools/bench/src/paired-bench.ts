// tsx tools/bench/src/paired-bench.ts <old tree> <old label> <main label> — the paired mode of
// bench:compare (BENCH_COMPARE_PAIRED=1), which prepares the old tree and builds both gateways
// first. Each tree's gateway runs on a database of its own, migrated by that tree's persistence
// and seeded by that tree's own bench (`seedForLoad`), and both are loaded at the same time with
// that tree's own `runCase` (25 connections each), case by case, pair after pair: a machine whose
// speed drifts from one run to the next (a shared virtual machine) moves both sides of a pair
// alike. Printed per database: main ÷ old of the gateway's CPU per request, the median of the
// pairs after the warm-up (paired-model.ts). This script reads both sides' CPU itself, the same way
// for both trees: every thread's run time to the nanosecond over each side's measured run
// (`threadCpuNanoseconds`; the trees' own figure counts 10 ms ticks, a few percent of a pair), and
// prints a second table for the main thread alone (what the JavaScript costs, without V8's collector
// and compiler threads).
//
// Environment: BENCH_DIALECTS (sqlite,postgres), BENCH_CASES (create,detail,list,approve,count:
// cases both trees have), BENCH_SECONDS (3 per pair), BENCH_PAIRS (5, the first a warm-up),
// BENCH_WARMUP_PAIRS (1: the first pairs left out of the median; both gateways still compile for
// several pairs, each pair's CPU per request falling, so a larger count reads the settled cost a
// long-running process pays), BENCH_RATE (requests per second each side is sent, autocannon's
// overall rate; unset: as fast as each answers — on two cores the two gateways, the load and the
// database then fight for the CPU, and a build measured against itself drifts by up to 18 % per
// case; a rate both keep up with measures each request's own work), BENCH_PG_URL (as
// bench:inventory), BENCH_PAIRED_OLD_ENV and BENCH_PAIRED_MAIN_ENV (gateway settings of one side,
// `NAME=value` pairs separated by spaces: with this tree as the old one too, a setting against itself),
// BENCH_PAIRED_OLD_NODE_ARGS and BENCH_PAIRED_MAIN_NODE_ARGS (Node and V8 flags of one side's gateway
// process, separated by spaces: what V8 reads only at start, such as --single-threaded-gc),
// BENCH_PROFILE_DIR (each gateway under --cpu-prof, its profile written to <dir>/old or <dir>/main
// when it stops; summarise one with cpu-profile-summary.ts, set the two side by side with
// cpu-profile-compare.ts).
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { type Child, ROOT, type ThreadCpu, freePort, startNode, threadCpuNanoseconds } from './bench-harness.js';
import { type PairedCase, pairedSettings, pairedTable } from './paired-model.js';
import { type SeededSide, type SideName, seedSide } from './tree-bench.js';

const [oldTree, oldLabel, mainLabel] = process.argv.slice(2);
if (!oldTree || !oldLabel || !mainLabel) throw new Error('usage: paired-bench.ts <old tree> <old label> <main label>');
const { dialects, cases, seconds, pairs, warmUp, rate, pgAdminUrl, sideEnv, sideNodeArgs } = pairedSettings(process.env);
const profileDir = process.env.BENCH_PROFILE_DIR;

interface Side extends SeededSide {
  side: SideName;
  url: string;
  pid: number;
}

async function startSide(side: SideName, tree: string, dialect: string, children: Child[]): Promise<Side> {
  const seeded = await seedSide('paired', side, tree, dialect, pgAdminUrl);
  const port = await freePort();
  const child = await startNode(
    [...sideNodeArgs[side], ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, side)}`] : []), join(tree, 'apps/gateway/dist/main.js')],
    { DATABASE_URL: seeded.databaseUrl, CREDENTIALS_KEY: seeded.bench.load.CREDENTIALS_KEY, LOG_LEVEL: 'warn', GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: String(port), RATE_LIMIT_SMALL: '1000000', ...sideEnv[side] },
    port,
  );
  children.push(child);
  return { ...seeded, side, url: `http://127.0.0.1:${port}`, pid: child.process.pid! };
}

for (const dialect of dialects) {
  const children: Child[] = [];
  const sides: Side[] = [];
  const series = () => new Map(cases.map((kind) => [kind, { kind, old: [] as number[], main: [] as number[] }]));
  const cpu = series();
  const mainThread = series();
  try {
    sides.push(await startSide('old', oldTree, dialect, children), await startSide('main', ROOT, dialect, children));
    for (let pair = 0; pair < pairs; pair += 1) {
      for (const kind of cases) {
        const measured = await Promise.all(
          sides.map(async (s) => {
            // Each side's measured run, read by this script the same way for both trees: every
            // thread's CPU to the nanosecond (the trees' own figure counts whole ticks).
            const read: { before: ThreadCpu | null; after: ThreadCpu | null } = { before: null, after: null };
            const around = { before: async () => void (read.before = threadCpuNanoseconds(s.pid)), after: async () => void (read.after = threadCpuNanoseconds(s.pid)) };
            const { measured: m } = await s.bench.load.runCase(
              { kind, url: s.url, pids: [s.pid], tenants: s.tenants, writer: s.writer, seconds, warmupSeconds: 1, connections: 25, approvePerSecond: 4000, poolSeed: 11 + pair, around, ...(rate ? { rate } : {}) },
              `${s.side} ${kind}`,
            );
            return { ticksUs: m.cpuUs ?? 0, sent: m.sent, ...read };
          }),
        );
        sides.forEach((s, i) => {
          const { ticksUs, sent, before, after } = measured[i]!;
          const perRequestUs = (ns: number) => (sent === 0 ? 0 : Math.round(ns / 1000 / sent));
          cpu.get(kind)![s.side].push(before && after ? perRequestUs(after.main + after.others - before.main - before.others) : Math.round(ticksUs));
          mainThread.get(kind)![s.side].push(before && after ? perRequestUs(after.main - before.main) : 0);
        });
      }
      console.log(`[${dialect}] pair ${pair + 1}/${pairs} done, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    }
  } finally {
    for (const child of children) child.process.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((resolve) => (c.process.exitCode !== null ? resolve(null) : c.process.once('exit', resolve)))));
    for (const s of sides) await s.cleanup().catch((error: unknown) => console.log(`[${dialect}] cleanup of ${s.side}: ${(error as Error).message}`));
  }
  const label = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const labels = { main: mainLabel, old: oldLabel };
  console.log(`\n${pairedTable(label, [...cpu.values()] as PairedCase[], labels, warmUp).join('\n')}\n`);
  if ([...mainThread.values()].every((c) => c.old.every((v) => v > 0) && c.main.every((v) => v > 0))) {
    console.log(`${pairedTable(label, [...mainThread.values()] as PairedCase[], labels, warmUp, "the gateway's main thread").join('\n')}\n`);
  }
}
