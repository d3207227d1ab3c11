// The reading and arithmetic of bench:compare, apart from anything that runs: the tables that
// bench:inventory prints (its current layout and older ones) read by column name, and main ÷ an
// earlier commit per case, with each side's spread over its runs.
import { meanOf, ratio } from './scale-out-model.js';

/** One case of one printed table: the gateway's side only (the bare route is the bench's own check). */
export interface InventoryRow {
  kind: string;
  gatewayRps: number;
  /** Microseconds of the gateway's CPU per request; null where the bench printed `-`. */
  gatewayCpuUs: number | null;
}

export interface InventoryTable {
  dialect: string;
  rows: InventoryRow[];
}

/** What one run of bench:inventory printed, as far as a comparison needs it. */
export interface InventoryOutput {
  tables: InventoryTable[];
  /** Statement checks that found the bare route running the gateway's statements. */
  statementChecksMatched: number;
  /** Lines that question the run: a statement check or a response shape that differs, non-2xx, a short pool. */
  warnings: string[];
}

const GATEWAY_RPS = 'gw req/s';
const GATEWAY_CPU = 'CPU us/req gw';

/**
 * Column names of more than one word that bench:inventory has printed, so that a header splits
 * into its columns; a new one that is missing here makes the row and header counts disagree, and
 * the reading fails rather than read the wrong column.
 */
const MULTI_WORD_COLUMNS = ['gw req/s', 'p50 ms', 'p99 ms', 'bare req/s', 'gw non-2xx', 'bare non-2xx', 'CPU us/req gw', 'PG us/req gw'];

/** Columns whose value may be several words (`12x503 3x500`): columns are counted from the far side of them. */
const MULTI_WORD_VALUES = new Set(['gw non-2xx', 'bare non-2xx']);

/** A header's column names, left to right, longest known name first. */
export function headerColumns(header: string): string[] {
  const words = header.trim().split(/\s+/);
  const columns: string[] = [];
  for (let i = 0; i < words.length; ) {
    const name = [...MULTI_WORD_COLUMNS]
      .sort((a, b) => b.length - a.length)
      .find((candidate) => {
        const parts = candidate.split(' ');
        return parts.every((part, j) => words[i + j] === part);
      });
    const taken = name ? name.split(' ').length : 1;
    columns.push(name ?? words[i]!);
    i += taken;
  }
  return columns;
}

/** The value of `column` in `row`: counted from the left before any several-word value, else from the right. */
function cell(columns: readonly string[], values: readonly string[], column: string, line: string): string {
  const index = columns.indexOf(column);
  if (index < 0) throw new Error(`bench:inventory table without a "${column}" column: ${columns.join(' | ')}`);
  const variable = columns.map((c) => MULTI_WORD_VALUES.has(c));
  const before = variable.slice(0, index).some(Boolean);
  const after = variable.slice(index + 1).some(Boolean);
  if (!variable.some(Boolean) && values.length !== columns.length) {
    throw new Error(`bench:inventory row of ${values.length} values under ${columns.length} columns: ${line}`);
  }
  if (values.length < columns.length) throw new Error(`bench:inventory row of ${values.length} values under ${columns.length} columns: ${line}`);
  if (before && after) throw new Error(`bench:inventory column "${column}" sits between columns of several words: cannot read ${line}`);
  const value = before ? values[values.length - (columns.length - index)] : values[index];
  return value!;
}

function numberIn(text: string, column: string, line: string): number {
  const value = Number(text);
  if (!Number.isFinite(value)) throw new Error(`bench:inventory "${column}" is not a number (${text}): ${line}`);
  return value;
}

const isRow = (line: string) => /^[a-z][a-z0-9-]*\s+-?[0-9]/.test(line);

/**
 * The tables of one bench:inventory run, one per dialect, read by column name from the header that
 * each table starts with (the line before it names the dialect: `[sqlite] adjustments, …`).
 *
 * @example
 * const { tables } = readInventoryOutput(stdout);
 * tables[0]; // { dialect: 'sqlite', rows: [{ kind: 'create', gatewayRps: 1510, gatewayCpuUs: 402 }, …] }
 */
export function readInventoryOutput(output: string): InventoryOutput {
  const lines = output.split(/\r?\n/);
  const tables: InventoryTable[] = [];
  let statementChecksMatched = 0;
  const warnings: string[] = [];
  for (const [i, line] of lines.entries()) {
    if (/SQL of .*: the bare route runs the gateway's/.test(line)) statementChecksMatched += 1;
    if (/DIFFERS|RESPONSES DIFFER|^WARNING|pool ran out/.test(line)) warnings.push(line.trim());
    if (!(/^case\s/.test(line) && line.includes(GATEWAY_RPS))) continue;
    const dialect = /^\[([a-z]+)\]/.exec(lines[i - 1] ?? '')?.[1];
    if (!dialect) throw new Error(`bench:inventory table without its title line ([dialect] …) above: ${line}`);
    const columns = headerColumns(line);
    const rows: InventoryRow[] = [];
    for (const rowLine of lines.slice(i + 1)) {
      if (!isRow(rowLine)) break;
      const values = rowLine.trim().split(/\s+/);
      const cpu = cell(columns, values, GATEWAY_CPU, rowLine);
      rows.push({
        kind: values[0]!,
        gatewayRps: numberIn(cell(columns, values, GATEWAY_RPS, rowLine), GATEWAY_RPS, rowLine),
        gatewayCpuUs: cpu === '-' ? null : numberIn(cpu, GATEWAY_CPU, rowLine),
      });
    }
    tables.push({ dialect, rows });
  }
  return { tables, statementChecksMatched, warnings };
}

/** One side's runs of one figure: their mean, and their lowest and highest. */
export interface Spread {
  mean: number;
  min: number;
  max: number;
  runs: number;
}

/** The spread of the figures that exist; null when none does. */
export function spreadOf(values: readonly (number | null)[]): Spread | null {
  const known = values.filter((v): v is number => v !== null);
  if (known.length === 0) return null;
  return { mean: meanOf(known)!, min: Math.min(...known), max: Math.max(...known), runs: known.length };
}

export interface FigureComparison {
  main: Spread | null;
  old: Spread | null;
  /** main ÷ old of the means over runs; null when either side has no figure. */
  ratio: number | null;
}

export interface CaseComparison {
  kind: string;
  cpuUs: FigureComparison;
  rps: FigureComparison;
}

export interface DialectComparison {
  dialect: string;
  /** The cases both sides measured, in main's order. */
  cases: CaseComparison[];
  /** Mean of the per-case ratios over MEAN_CASES that both sides measured (listed in `meanOver`). */
  meanCpuRatio: number | null;
  meanRpsRatio: number | null;
  meanOver: string[];
  onlyMain: string[];
  onlyOld: string[];
}

/** The cases the mean is taken over: the adjustment endpoints and the stock count, which every layout has. */
export const MEAN_CASES = ['create', 'detail', 'list', 'approve', 'count'] as const;

function figure(main: readonly (number | null)[], old: readonly (number | null)[]): FigureComparison {
  const m = spreadOf(main);
  const o = spreadOf(old);
  return { main: m, old: o, ratio: ratio(m?.mean ?? null, o?.mean ?? null) };
}

const rowsOf = (runs: readonly InventoryOutput[], dialect: string, kind: string) =>
  runs.flatMap((run) => run.tables.filter((t) => t.dialect === dialect).flatMap((t) => t.rows.filter((r) => r.kind === kind)));

const kindsOf = (runs: readonly InventoryOutput[], dialect: string) => [
  ...new Set(runs.flatMap((run) => run.tables.filter((t) => t.dialect === dialect).flatMap((t) => t.rows.map((r) => r.kind)))),
];

/**
 * main ÷ old per dialect and case, over every run of each side: the ratio of the means over runs,
 * and the mean of those ratios over MEAN_CASES.
 *
 * @example
 * const [sqlite] = compareRuns(mainRuns, oldRuns);
 * sqlite.cases[0]; // { kind: 'create', cpuUs: { main: { mean: 410, min: 402, max: 418, runs: 2 }, old: …, ratio: 1.12 }, rps: … }
 */
export function compareRuns(main: readonly InventoryOutput[], old: readonly InventoryOutput[]): DialectComparison[] {
  const dialects = [...new Set([...main, ...old].flatMap((run) => run.tables.map((t) => t.dialect)))];
  return dialects.map((dialect) => {
    const mainKinds = kindsOf(main, dialect);
    const oldKinds = kindsOf(old, dialect);
    const cases = mainKinds
      .filter((kind) => oldKinds.includes(kind))
      .map((kind) => {
        const m = rowsOf(main, dialect, kind);
        const o = rowsOf(old, dialect, kind);
        return {
          kind,
          cpuUs: figure(m.map((r) => r.gatewayCpuUs), o.map((r) => r.gatewayCpuUs)),
          rps: figure(m.map((r) => r.gatewayRps), o.map((r) => r.gatewayRps)),
        };
      });
    const meaned = cases.filter((c) => (MEAN_CASES as readonly string[]).includes(c.kind));
    return {
      dialect,
      cases,
      meanCpuRatio: meanOf(meaned.map((c) => c.cpuUs.ratio)),
      meanRpsRatio: meanOf(meaned.map((c) => c.rps.ratio)),
      meanOver: meaned.map((c) => c.kind),
      onlyMain: mainKinds.filter((kind) => !oldKinds.includes(kind)),
      onlyOld: oldKinds.filter((kind) => !mainKinds.includes(kind)),
    };
  });
}

const DIALECT_NAMES: Record<string, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

const spreadCell = (s: Spread | null) => (s === null ? '-' : s.runs > 1 ? `${s.mean.toFixed(0)} (${s.min.toFixed(0)}–${s.max.toFixed(0)})` : s.mean.toFixed(0));
const ratioCell = (r: number | null) => (r === null ? '-' : r.toFixed(2));

/**
 * One dialect's comparison as a Markdown table (so it can go into docs/benchmarks.md as printed):
 * each side's mean over its runs with their lowest and highest, then main ÷ old.
 */
export function comparisonTable(d: DialectComparison, labels: { main: string; old: string }): string[] {
  const lines = [
    `${DIALECT_NAMES[d.dialect] ?? d.dialect}: gateway CPU per request (µs) and gateway requests per second, mean of each side's runs (lowest–highest)`,
    '',
    `| case | CPU µs/req ${labels.main} | ${labels.old} | ${labels.main} ÷ ${labels.old} | req/s ${labels.main} | ${labels.old} | ${labels.main} ÷ ${labels.old} |`,
    '|---|---|---|---|---|---|---|',
    ...d.cases.map((c) => `| ${c.kind} | ${spreadCell(c.cpuUs.main)} | ${spreadCell(c.cpuUs.old)} | ${ratioCell(c.cpuUs.ratio)} | ${spreadCell(c.rps.main)} | ${spreadCell(c.rps.old)} | ${ratioCell(c.rps.ratio)} |`),
  ];
  if (d.meanOver.length) lines.push(`| mean of ${d.meanOver.join(', ')} | | | ${ratioCell(d.meanCpuRatio)} | | | ${ratioCell(d.meanRpsRatio)} |`);
  if (d.onlyMain.length) lines.push('', `Measured on ${labels.main} only: ${d.onlyMain.join(', ')}.`);
  if (d.onlyOld.length) lines.push('', `Measured on ${labels.old} only: ${d.onlyOld.join(', ')}.`);
  return lines;
}

export interface CompareSettings {
  commit: string;
  /** Pairs of runs, each pair one run of each side: old main, main old, … */
  rounds: number;
  keep: boolean;
  /**
   * `turns`: each tree's bench:inventory in turns; `paired`: both gateways loaded at the same time,
   * each on its own database (paired-bench.ts); `instructions`: both under callgrind, their
   * instructions per request counted (instruction-bench.ts).
   */
  mode: 'turns' | 'paired' | 'instructions';
}

/** The command line and environment of bench:compare; throws on what it cannot use, before anything runs. */
export function compareSettings(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CompareSettings {
  const [commit, ...rest] = argv;
  if (!commit || rest.length) throw new Error('usage: npm run bench:compare -- <commit>   (one earlier commit to measure main against)');
  const rounds = Number(env.BENCH_COMPARE_ROUNDS ?? 2);
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error(`BENCH_COMPARE_ROUNDS: a whole number of at least 1, got ${env.BENCH_COMPARE_ROUNDS}`);
  const paired = env.BENCH_COMPARE_PAIRED === '1';
  const instructions = env.BENCH_COMPARE_INSTRUCTIONS === '1';
  if (paired && instructions) throw new Error('BENCH_COMPARE_PAIRED and BENCH_COMPARE_INSTRUCTIONS: one mode at a time');
  return { commit, rounds, keep: env.BENCH_COMPARE_KEEP === '1', mode: paired ? 'paired' : instructions ? 'instructions' : 'turns' };
}
