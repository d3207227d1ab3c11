// The arithmetic of bench:compare's instruction mode (BENCH_COMPARE_INSTRUCTIONS=1): each gateway
// runs under valgrind's callgrind, which counts the instructions the process executes (user space,
// every thread) whatever else the machine is doing; a round's count is read from
// `callgrind_annotate`'s self cost per function, split into V8's garbage collector, its compilers,
// and the rest (the request's own work: JavaScript, the runtime, SQLite, Node's HTTP). The split is
// by the C++ names V8 and Node give their functions; JIT-compiled JavaScript has no name and counts
// as work.

/** Where a function's instructions are counted. */
export type Share = 'gc' | 'compiler' | 'work';

const GC = /Scaveng|MarkCompact|Marking|Sweeper|IteratePointers|Evacuat|RecordMigrated|heap::base::|v8::internal::Heap::|MemoryAllocator|MemoryChunk|PagedSpace|SemiSpace|cppgc::|RememberedSet|SlotSet|FreeList|UpdatingItem|ProcessWeak|GCTracer|LiveObjectRange|ArrayBufferSweeper/;
const COMPILER = /v8::internal::compiler::|maglev::|Maglev|baseline::|turboshaft::|BytecodeGenerator|v8::internal::Parser|v8::internal::Scanner|RegisterAllocat|InstructionSelector|CodeGenerator|Assembler::|Zone::/;

/**
 * The number of a dump callgrind wrote with `--callgrind-out-file=<dir>/callgrind.out`
 * (callgrind.out.1, .2, … in the order they were asked for); null for any other file, the final
 * dump at exit (callgrind.out) included.
 */
export function dumpNumber(file: string): number | null {
  const match = /^callgrind\.out\.(\d+)$/.exec(file);
  return match ? Number(match[1]) : null;
}

/** Which share a `callgrind_annotate` function name (`file:function [object]`) belongs to. */
export function shareOf(name: string): Share {
  if (GC.test(name)) return 'gc';
  if (COMPILER.test(name)) return 'compiler';
  return 'work';
}

/** One round's instructions, by share. */
export interface RoundCount {
  total: number;
  gc: number;
  compiler: number;
  work: number;
}

const LINE = /^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$/;

/**
 * The shares of one dump from the text of `callgrind_annotate --inclusive=no --threshold=100`.
 * Its PROGRAM TOTALS line is the total; a line of 90 % of it or more is an entry point that
 * callgrind lists with its callees' cost (`main`, `start_thread`), not its own, and is skipped.
 */
export function countRound(annotated: string): RoundCount {
  let total: number | null = null;
  const shares = { gc: 0, compiler: 0, work: 0 };
  for (const line of annotated.split('\n')) {
    const match = LINE.exec(line);
    if (!match) continue;
    const count = Number(match[1]!.replaceAll(',', ''));
    if (match[2]!.startsWith('PROGRAM TOTALS')) {
      total = count;
      continue;
    }
    if (total === null || count >= 0.9 * total) continue;
    shares[shareOf(match[2]!)] += count;
  }
  if (total === null) throw new Error('callgrind_annotate printed no PROGRAM TOTALS line');
  // What the listing leaves out (below its threshold, or the skipped entry points' own few) is work.
  return { total, gc: shares.gc, compiler: shares.compiler, work: total - shares.gc - shares.compiler };
}

/** One case on one side: its rounds after the warm-up, `requests` each. */
export interface CaseCounts {
  kind: string;
  requests: number;
  old: readonly RoundCount[];
  main: readonly RoundCount[];
}

const lowest = (values: readonly number[]): number => Math.min(...values);

/**
 * Per case and side, thousands of instructions per request of the round with the least work (the
 * one least disturbed by the compilers still warming up), its garbage collection beside it, and
 * main ÷ old of the work; then the mean of the work ratios of the cases given.
 */
export function instructionTable(dialect: string, cases: readonly CaseCounts[], labels: { main: string; old: string }, meanCases: readonly string[]): string[] {
  const perRequest = (count: number, requests: number) => (count / requests / 1000).toFixed(0);
  const lines = [
    `${dialect}: instructions per request (thousands), counted by callgrind; work = all but V8's garbage collector and compilers; the round with the least work of each side`,
    '',
    `| case | work main ÷ ${labels.old} | work ${labels.main} | work ${labels.old} | GC ${labels.main} | GC ${labels.old} | work of each round, ${labels.main} / ${labels.old} |`,
    '|---|---|---|---|---|---|---|',
  ];
  const ratios = new Map<string, number>();
  for (const c of cases) {
    if (c.old.length === 0 || c.main.length === 0) throw new Error(`${c.kind}: a side counted no round`);
    const best = (rounds: readonly RoundCount[]) => rounds.find((r) => r.work === lowest(rounds.map((x) => x.work)))!;
    const [m, o] = [best(c.main), best(c.old)];
    const ratio = m.work / o.work;
    ratios.set(c.kind, ratio);
    const each = (rounds: readonly RoundCount[]) => rounds.map((r) => perRequest(r.work, c.requests)).join(' ');
    lines.push(
      `| ${c.kind} | ${ratio.toFixed(3)} | ${perRequest(m.work, c.requests)} | ${perRequest(o.work, c.requests)} | ${perRequest(m.gc, c.requests)} | ${perRequest(o.gc, c.requests)} | ${each(c.main)} / ${each(c.old)} |`,
    );
  }
  const counted = meanCases.map((kind) => ratios.get(kind)).filter((r): r is number => r !== undefined);
  if (counted.length === meanCases.length) lines.push(`| mean of ${meanCases.join(', ')} | ${(counted.reduce((a, b) => a + b, 0) / counted.length).toFixed(3)} | | | | | |`);
  return lines;
}
