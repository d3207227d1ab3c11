// The fault table: one row per fault and dialect (requests sent, writes acknowledged, lost,
// doubled, statuses seen during the fault, slowest answer, time to recover), kept in
// reports/faults/fault-table.json (latest row per fault and dialect) and printed as markdown.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '../harness/child-service.js';

export interface FaultRow {
  fault: string;
  dialect: string;
  /** Requests the traffic sent while the scenario ran (reads and writes, retries not included). */
  sent: number;
  /** Writes among them, each with its own Idempotency-Key. */
  writes: number;
  /** Writes answered 2xx while the scenario ran. */
  acknowledged: number;
  /** Writes sent again with their key afterwards, because they got no 2xx. */
  retried: number;
  lost: number;
  doubled: number;
  halfApplied: number;
  /** Status → count, over the requests in flight from the fault's start until every process had recovered (0: no answer). */
  statusesDuringFault: Record<string, number>;
  maxLatencyDuringFaultMs: number;
  /** From the end of the fault (or the failover) to the first success on every process; null when it never recovered. */
  recoverMs: number | null;
  recordedAt: string;
}

export const FAULT_TABLE_PATH = join(REPO_ROOT, 'reports', 'faults', 'fault-table.json');

/** The table's row order: the scenarios in the order the issue lists them. */
const ORDER = ['failover', 'outage', 'stall', 'reset', 'lock', 'start', 'webhook', 'redis', 'sqlite'];
const rank = (fault: string) => {
  const i = ORDER.findIndex((prefix) => fault.toLowerCase().startsWith(prefix));
  return i === -1 ? ORDER.length : i;
};

export function readFaultRows(path = FAULT_TABLE_PATH): FaultRow[] {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as FaultRow[];
  } catch {
    return [];
  }
}

/**
 * Adds `row`, replacing an earlier row of the same fault and dialect, so the file always holds
 * the latest run of every scenario.
 *
 * @example
 * recordFaultRow({ fault: 'outage (proxy cut 4 s)', dialect: 'postgres', sent: 312, ... });
 */
export function recordFaultRow(row: FaultRow, path = FAULT_TABLE_PATH): void {
  const rows = readFaultRows(path).filter((r) => !(r.fault === row.fault && r.dialect === row.dialect));
  rows.push(row);
  rows.sort((a, b) => rank(a.fault) - rank(b.fault) || a.dialect.localeCompare(b.dialect));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(rows, null, 2)}\n`);
}

const statuses = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, n]) => `${status === '0' ? 'none' : status}×${n}`)
    .join(', ') || '-';

/**
 * The rows as a markdown table, ready for a closing note.
 *
 * @example
 * console.log(faultTableMarkdown(readFaultRows()));
 */
export function faultTableMarkdown(rows: readonly FaultRow[]): string {
  const head = ['Fault', 'Dialect', 'Sent', 'Writes', 'Acked', 'Retried', 'Lost', 'Doubled', 'Half-applied', 'Statuses during fault', 'Max latency (ms)', 'Recover (ms)'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    lines.push(
      `| ${[
        r.fault,
        r.dialect,
        r.sent,
        r.writes,
        r.acknowledged,
        r.retried,
        r.lost,
        r.doubled,
        r.halfApplied,
        statuses(r.statusesDuringFault),
        Math.round(r.maxLatencyDuringFaultMs),
        r.recoverMs === null ? 'never' : Math.round(r.recoverMs),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** Prints the whole table as it stands in the file (every scenario run so far, latest row each). */
export function printFaultTable(): void {
  console.log(`Fault table (${FAULT_TABLE_PATH}):\n\n${faultTableMarkdown(readFaultRows())}\n`);
}
