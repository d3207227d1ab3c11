// The pragmas every SQLite connection of this product opens with, checked on a real file: the log
// mode, and the checkpoint that waits for 4000 pages of log instead of SQLite's 1000
// (docs/operating-guarantees.md#embedded-database-checkpoints).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WAL_CHECKPOINT_PAGES, openSqlite } from './sqlite-dialect.js';

/** SQLite's own checkpoint threshold, which this product raises. */
const SQLITE_DEFAULT_CHECKPOINT_PAGES = 1000;

describe('openSqlite', () => {
  let dir: string;
  let raw: BetterSqlite3.Database;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pits-sqlite-pragmas-'));
    raw = openSqlite(join(dir, 'pragmas.sqlite'));
    raw.exec('create table pages (id integer primary key, body blob not null)');
  });
  afterEach(() => {
    raw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Pages in the log file: a 32-byte header, then frames of a page and a 24-byte header each. */
  function logFileFrames(): number {
    const pageSize = raw.pragma('page_size', { simple: true }) as number;
    return Math.floor((statSync(join(dir, 'pragmas.sqlite-wal')).size - 32) / (pageSize + 24));
  }

  /**
   * Commits rows of most of a page, one commit each, until the log file holds `frames` pages.
   * Bounded: a log rewound by a checkpoint stops growing, and the loop gives up.
   */
  function commitUntilLogHolds(frames: number): void {
    const insert = raw.prepare('insert into pages (body) values (?)');
    const body = Buffer.alloc(3000, 7);
    for (let commits = 0; logFileFrames() < frames; commits += 1) {
      if (commits > 4 * frames) throw new Error(`the log stopped growing at ${logFileFrames()} pages`);
      insert.run(body);
    }
  }

  /** The pages of the log's current generation (since its last rewind), read by a passive checkpoint. */
  function logPages(): number {
    const [result] = raw.pragma('wal_checkpoint(PASSIVE)') as [{ busy: number; log: number; checkpointed: number }];
    return result.log;
  }

  it('opens the file in WAL mode, synced at checkpoints, with the raised checkpoint threshold', () => {
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(raw.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_CHECKPOINT_PAGES);
    expect(WAL_CHECKPOINT_PAGES).toBeGreaterThan(SQLITE_DEFAULT_CHECKPOINT_PAGES);
  });

  it('lets the log pass 1000 pages without a checkpoint', () => {
    commitUntilLogHolds(2 * SQLITE_DEFAULT_CHECKPOINT_PAGES);
    // No commit ran a checkpoint: the log's one generation holds every page written.
    expect(logPages()).toBeGreaterThanOrEqual(2 * SQLITE_DEFAULT_CHECKPOINT_PAGES);
  });

  it('runs a checkpoint in the commit that takes the log past 4000 pages', () => {
    commitUntilLogHolds(WAL_CHECKPOINT_PAGES + 1);
    // That commit copied the log into the file; the next one starts the log again from its start.
    raw.prepare('insert into pages (body) values (?)').run(Buffer.alloc(3000, 7));
    const pages = logPages();
    expect(pages).toBeGreaterThan(0);
    expect(pages).toBeLessThan(SQLITE_DEFAULT_CHECKPOINT_PAGES);
  });
});
