import { describe, expect, it } from 'vitest';
import { type RoundCount, countRound, dumpNumber, instructionTable, shareOf } from './instruction-model.js';

// The shape of `callgrind_annotate --inclusive=no --threshold=100` output, shortened.
const ANNOTATED = `--------------------------------------------------------------------------------
Profile data file 'cg.out.3' (creator: callgrind-3.19.0)
--------------------------------------------------------------------------------
Ir
--------------------------------------------------------------------------------
1,000,000 (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                    file:function
--------------------------------------------------------------------------------
1,000,000 (100.0%)  ./csu/../csu/libc-start.c:__libc_start_main@@GLIBC_2.34 [/usr/lib/x86_64-linux-gnu/libc.so.6]
1,000,000 (100.0%)  ???:node::Start(int, char**) [/usr/bin/node]
  300,000 (30.00%)  ???:sqlite3VdbeExec [/work/node_modules/better-sqlite3/build/Release/better_sqlite3.node]
  120,000 (12.00%)  ???:void v8::internal::MarkingVisitorBase<v8::internal::MainMarkingVisitor<v8::internal::MarkingState>, v8::internal::MarkingState>::ProcessStrongHeapObject [/usr/bin/node]
   80,000 ( 8.00%)  ???:heap::base::SlotCallbackResult v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot>(v8::internal::FullHeapObjectSlot) [/usr/bin/node]
   50,000 ( 5.00%)  ???:v8::internal::compiler::GraphReducer::ReduceTop() [/usr/bin/node]
   40,000 ( 4.00%)  ???:Builtins_LoadIC [/usr/bin/node]
   10,000 ( 1.00%)  ???:0x000000000d1a5fc0 [???]
`;

describe('shareOf', () => {
  it("puts V8's collector and compilers apart from the request's work", () => {
    expect(shareOf('???:v8::internal::Sweeper::RawSweep(v8::internal::Page*) [/usr/bin/node]')).toBe('gc');
    expect(shareOf('???:v8::internal::maglev::MaglevGraphBuilder::Build() [/usr/bin/node]')).toBe('compiler');
    expect(shareOf('???:sqlite3VdbeExec [better_sqlite3.node]')).toBe('work');
    expect(shareOf('???:0x000000000d1a5fc0 [???]')).toBe('work');
    expect(shareOf('???:v8::internal::JsonStringifier::SerializeString(v8::internal::Handle<v8::internal::String>) [/usr/bin/node]')).toBe('work');
  });
});

describe('dumpNumber', () => {
  it('numbers the dumps callgrind writes on request, and nothing else', () => {
    expect(dumpNumber('callgrind.out.1')).toBe(1);
    expect(dumpNumber('callgrind.out.12')).toBe(12);
    expect(dumpNumber('callgrind.out')).toBeNull();
    expect(dumpNumber('bench.sqlite')).toBeNull();
    expect(dumpNumber('callgrind.out.1.tmp')).toBeNull();
  });
});

describe('countRound', () => {
  it('splits the total and skips the entry points listed with their callees', () => {
    expect(countRound(ANNOTATED)).toEqual({ total: 1_000_000, gc: 200_000, compiler: 50_000, work: 750_000 });
  });

  it('refuses output without a total', () => {
    expect(() => countRound('nothing here')).toThrow(/PROGRAM TOTALS/);
  });
});

describe('instructionTable', () => {
  const round = (work: number, gc = 0): RoundCount => ({ total: work + gc, gc, compiler: 0, work });

  it('compares the round with the least work of each side, and means the ratios', () => {
    const lines = instructionTable(
      'SQLite',
      [
        { kind: 'detail', requests: 1000, main: [round(900_000_000), round(800_000_000, 50_000_000)], old: [round(1_000_000_000, 10_000_000)] },
        { kind: 'list', requests: 1000, main: [round(1_200_000_000)], old: [round(1_000_000_000)] },
      ],
      { main: 'main', old: 'old' },
      ['detail', 'list'],
    );
    expect(lines).toContain('| detail | 0.800 | 800 | 1000 | 50 | 10 | 900 800 / 1000 |');
    expect(lines).toContain('| list | 1.200 | 1200 | 1000 | 0 | 0 | 1200 / 1000 |');
    expect(lines.at(-1)).toBe('| mean of detail, list | 1.000 | | | | | |');
  });

  it('prints no mean when a case of it is missing', () => {
    const lines = instructionTable('SQLite', [{ kind: 'detail', requests: 10, main: [round(10)], old: [round(10)] }], { main: 'main', old: 'old' }, ['detail', 'list']);
    expect(lines.some((l) => l.startsWith('| mean'))).toBe(false);
  });

  it('refuses a side without rounds', () => {
    expect(() => instructionTable('SQLite', [{ kind: 'detail', requests: 10, main: [], old: [round(10)] }], { main: 'main', old: 'old' }, [])).toThrow(/no round/);
  });
});
