// npm run bench:compare -- <commit> — the gateway's CPU per request and requests per second, main
// (this working tree, as the script has just built it) against an earlier commit, per case, on
// each database. The commit is checked out in a worktree of its own beside this one, given
// dependencies (main's node_modules hard-linked when package-lock.json is the same, else `npm ci`)
// and its gateway built; then each tree runs its own `npm run inventory -w @pits/bench`, in
// turns: old main, main old, … (BENCH_COMPARE_ROUNDS pairs, 2), so a drift of the machine falls on
// both sides alike. Every run's printed tables are read by column name (compare-model.ts), and
// main ÷ old is printed per case with each side's spread, then the load average around each run.
// Each side measures its own bare route and checks its statements as it always has; their
// warnings are printed here too.
//
// With BENCH_COMPARE_PAIRED=1 the two gateways run at the same time instead, each on its own
// database, and main ÷ old is the median of the pairs (paired-bench.ts): on a machine whose speed
// drifts between runs (a shared virtual machine), runs in turn cannot tell 10 % apart. With
// BENCH_COMPARE_INSTRUCTIONS=1 both run under valgrind's callgrind and the figure is instructions
// per request (instruction-bench.ts): it does not move with the machine's load.
//
// Environment: BENCH_COMPARE_ROUNDS (2: pairs of runs), BENCH_COMPARE_KEEP (1: leave the worktree,
// which a later run at the same commit then reuses), BENCH_COMPARE_PAIRED (1: the paired mode,
// reading BENCH_PAIRS, BENCH_WARMUP_PAIRS, BENCH_SECONDS, BENCH_RATE, BENCH_DIALECTS and BENCH_CASES as paired-bench.ts does),
// BENCH_COMPARE_INSTRUCTIONS (1: the instruction mode, reading what instruction-bench.ts reads), and what bench:inventory reads
// (BENCH_SECONDS, BENCH_DIALECTS, BENCH_CASES, BENCH_ROUNDS, …), passed to both sides alike.
// Without BENCH_CASES each side runs its own default cases; those only one side has are named.
import { type SpawnOptions, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { ROOT } from './bench-harness.js';
import { type CompareSettings, type InventoryOutput, compareRuns, compareSettings, comparisonTable, readInventoryOutput } from './compare-model.js';
import { runOrder } from './scale-out-model.js';

type Side = 'old' | 'main';

let settings: CompareSettings;
try {
  settings = compareSettings(process.argv.slice(2), process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}

/**
 * The environment of a command in the other tree: without what `npm run` set for this one (its
 * package, its prefix, its working directory), so that npm there finds that tree's package.json.
 */
const childEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD')),
  PATH: (process.env.PATH ?? '').split(':').filter((dir) => !dir.startsWith(`${ROOT}/`)).join(':'),
  ...extra,
});

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
}

/** Runs a command to its end, its output (both streams) into `log`; stdout is also kept. */
async function run(command: string, args: readonly string[], options: SpawnOptions & { cwd: string; log: string }): Promise<Finished> {
  const log = createWriteStream(options.log, { flags: 'a' });
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    log.write(chunk);
  });
  child.stderr!.on('data', (chunk: Buffer) => log.write(chunk));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c, s) => resolve([c, s]));
  });
  await new Promise<void>((resolve) => log.end(resolve));
  return { code, signal, stdout };
}

async function mustRun(what: string, command: string, args: readonly string[], options: SpawnOptions & { cwd: string; log: string }): Promise<string> {
  const done = await run(command, args, options);
  if (done.code !== 0) throw new Error(`${what} failed (${done.signal ?? `exit ${done.code}`}); its output is in ${options.log}`);
  return done.stdout;
}

const git = async (args: readonly string[], log: string) => (await mustRun(`git ${args.join(' ')}`, 'git', args, { cwd: ROOT, log })).trim();

/** Whether `git diff --quiet` finds no difference (exit 0) or one (exit 1). */
async function sameLockfile(sha: string, log: string): Promise<boolean> {
  const done = await run('git', ['diff', '--quiet', sha, 'HEAD', '--', 'package-lock.json'], { cwd: ROOT, log });
  if (done.code !== 0 && done.code !== 1) throw new Error(`git diff of package-lock.json failed; see ${log}`);
  return done.code === 0;
}

const loadNow = () => loadavg().map((l) => l.toFixed(2)).join(' ');

const logs = mkdtempSync(join(tmpdir(), 'pits-compare-logs-'));
const sha = await git(['rev-parse', '--verify', `${settings.commit}^{commit}`], join(logs, 'git.log'));
const short = sha.slice(0, 7);
const head = await git(['rev-parse', '--short=7', 'HEAD'], join(logs, 'git.log'));
const dirty = await git(['status', '--porcelain', '--untracked-files=no', '--', 'apps', 'packages', 'tools/bench'], join(logs, 'git.log'));
const tree = join(tmpdir(), `pits-compare-${short}`);
const labels = { main: 'main', old: short };

// Ctrl-C reaches the runs too (same process group); staying alive lets the worktree be removed.
let interrupted = false;
process.on('SIGINT', () => {
  interrupted = true;
});

/** Whether the worktree is this command's to remove: made by it, or left at this commit by an earlier run. */
let owned = false;
try {
  console.log(`bench:compare: main (${ROOT}, HEAD ${head}) against ${short}, in ${tree}; logs in ${logs}`);
  if (dirty) console.log(`main's working tree differs from HEAD ${head}, and is measured as it is:\n${dirty.replace(/^/gm, '  ')}`);

  if (existsSync(tree)) {
    const at = await git(['-C', tree, 'rev-parse', 'HEAD'], join(logs, 'git.log'));
    if (at !== sha) throw new Error(`${tree} exists at ${at.slice(0, 7)}, not ${short}: remove it (git worktree remove --force ${tree})`);
    owned = true;
    console.log(`reusing the worktree at ${short} left by an earlier run`);
  } else {
    await git(['worktree', 'add', '--detach', tree, sha], join(logs, 'git.log'));
    owned = true;
  }

  if (existsSync(join(tree, 'node_modules'))) {
    console.log('dependencies: already installed there');
  } else if (await sameLockfile(sha, join(logs, 'git.log'))) {
    // The same lockfile: the same packages, so main's are linked rather than installed again.
    // Every workspace's own node_modules too; the cache folder is left out, so a tool writing
    // there never writes through a link into main's files.
    const found = await mustRun('find node_modules', 'find', ['.', '-maxdepth', '3', '-name', 'node_modules', '-not', '-path', '*/node_modules/*'], { cwd: ROOT, log: join(logs, 'deps.log') });
    const folders = found.split('\n').map((f) => f.trim()).filter(Boolean).map((f) => relative('.', f));
    const linked: string[] = [];
    for (const folder of folders) {
      if (!existsSync(join(tree, dirname(folder)))) continue;
      await mustRun(`cp -al ${folder}`, 'cp', ['-al', join(ROOT, folder), join(tree, folder)], { cwd: ROOT, log: join(logs, 'deps.log') });
      linked.push(folder);
    }
    await mustRun('rm node_modules/.cache', 'rm', ['-rf', join(tree, 'node_modules', '.cache')], { cwd: ROOT, log: join(logs, 'deps.log') });
    console.log(`dependencies: package-lock.json as on main, node_modules hard-linked from main (${linked.join(', ')})`);
  } else {
    console.log(`dependencies: package-lock.json differs from main's, npm ci in ${tree} …`);
    await mustRun('npm ci', 'npm', ['ci', '--no-audit', '--no-fund'], { cwd: tree, env: childEnv(), log: join(logs, 'npm-ci.log') });
  }

  console.log(`building ${short}'s gateway …`);
  await mustRun(
    `the build of ${short}'s gateway`,
    join(tree, 'node_modules', '.bin', 'nx'),
    ['run-many', '-t', 'build', '--projects=@pits/gateway', '--skip-nx-cache', '--outputStyle=static'],
    { cwd: tree, env: childEnv({ NX_NO_CLOUD: 'true', NX_DAEMON: 'false' }), log: join(logs, 'build.log') },
  );

  if (settings.mode !== 'turns') {
    const [script, what] = settings.mode === 'paired' ? ['paired-bench.ts', 'both gateways at once, each on its own database'] : ['instruction-bench.ts', 'both gateways under callgrind, their instructions counted'];
    console.log(`${settings.mode}: ${what} …`);
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'tools/bench/src', script), tree, short, `main (${head})`], { cwd: ROOT, env: childEnv(), stdio: 'inherit' });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) throw new Error(`the ${settings.mode} run failed (exit ${code})`);
  } else {
    const passed = ['BENCH_SECONDS', 'BENCH_DIALECTS', 'BENCH_CASES', 'BENCH_ROUNDS'].map((k) => `${k}=${process.env[k] ?? '(its default)'}`).join(' ');
    const order = runOrder<Side>(['old', 'main'], settings.rounds);
    const outputs: Record<Side, InventoryOutput[]> = { old: [], main: [] };
    const loads: string[] = [];
    for (const [i, side] of order.entries()) {
      if (interrupted) throw new Error('interrupted');
      const label = side === 'main' ? `main (${head})` : short;
      const log = join(logs, `run-${i + 1}-${side}.log`);
      const before = loadNow();
      const started = Date.now();
      console.log(`run ${i + 1}/${order.length}: ${label} …`);
      const stdout = await mustRun(`run ${i + 1} (${label})`, 'npm', ['run', 'inventory', '-w', '@pits/bench'], { cwd: side === 'main' ? ROOT : tree, env: childEnv(), log });
      const read = readInventoryOutput(stdout);
      if (read.tables.every((t) => t.rows.length === 0)) throw new Error(`run ${i + 1} (${label}) printed no table to read; its output is in ${log}`);
      outputs[side].push(read);
      const line = `run ${i + 1} ${label.padEnd(14)} ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s, load average ${before} → ${loadNow()}`;
      loads.push(line);
      console.log(`  ${line}`);
    }

    console.log(`\nmain (${head}) against ${short}: ${settings.rounds * 2} runs in turn (${order.map((s) => (s === 'main' ? 'main' : short)).join(', ')}), ${passed}\n`);
    for (const dialect of compareRuns(outputs.main, outputs.old)) console.log(`${comparisonTable(dialect, labels).join('\n')}\n`);
    for (const side of ['old', 'main'] as const) {
      const runs = outputs[side];
      const warnings = runs.flatMap((r, i) => r.warnings.map((w) => `run of ${side === 'main' ? 'main' : short} #${i + 1}: ${w}`));
      const matched = runs.map((r) => r.statementChecksMatched).join(', ');
      console.log(`${side === 'main' ? 'main' : short}: statement checks matched per run: ${matched}${warnings.length ? `\n  ${warnings.join('\n  ')}` : '; no warnings'}`);
    }
    console.log(`\nload average (1, 5, 15 min) before → after each run, on ${cpus().length} CPUs:\n  ${loads.join('\n  ')}`);
  }
} finally {
  if (settings.keep && owned) {
    console.log(`kept ${tree} (BENCH_COMPARE_KEEP=1): a later run at ${short} reuses it`);
  } else if (owned) {
    const removed = await run('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT, log: join(logs, 'git.log') });
    if (removed.code !== 0) console.log(`could not remove the worktree ${tree}; see ${join(logs, 'git.log')}`);
  }
  console.log(`logs of every step: ${logs}`);
}
