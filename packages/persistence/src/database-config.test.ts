import { describe, expect, it } from 'vitest';
import { describeDatabase, parseDatabaseUrl } from './database-config.js';

describe('parseDatabaseUrl', () => {
  it('defaults to a SQLite file under ./data', () => {
    expect(parseDatabaseUrl(undefined, '/srv/app')).toEqual({ dialect: 'sqlite', location: '/srv/app/data/pits.sqlite' });
    expect(parseDatabaseUrl('  ', '/srv/app')).toEqual({ dialect: 'sqlite', location: '/srv/app/data/pits.sqlite' });
  });

  it('opens PostgreSQL for postgres:// and postgresql:// URLs', () => {
    expect(parseDatabaseUrl('postgres://u:p@db:5432/pits')).toEqual({ dialect: 'postgres', url: 'postgres://u:p@db:5432/pits' });
    expect(parseDatabaseUrl('postgresql://db/pits').dialect).toBe('postgres');
  });

  it('accepts sqlite: URLs, plain paths and :memory:', () => {
    expect(parseDatabaseUrl('sqlite:./x.db', '/w')).toEqual({ dialect: 'sqlite', location: '/w/x.db' });
    expect(parseDatabaseUrl('sqlite:///var/lib/pits.db')).toEqual({ dialect: 'sqlite', location: '/var/lib/pits.db' });
    expect(parseDatabaseUrl('sqlite::memory:')).toEqual({ dialect: 'sqlite', location: ':memory:' });
    expect(parseDatabaseUrl('/tmp/a.sqlite')).toEqual({ dialect: 'sqlite', location: '/tmp/a.sqlite' });
  });

  it('refuses other schemes and an empty sqlite: URL with a clear message', () => {
    expect(() => parseDatabaseUrl('mysql://db/x')).toThrow(/not supported/);
    expect(() => parseDatabaseUrl('sqlite:')).toThrow(/names no file/);
  });

  it('never prints a password', () => {
    expect(describeDatabase({ dialect: 'postgres', url: 'postgres://u:secret@db/x' })).not.toContain('secret');
    expect(describeDatabase({ dialect: 'postgres', url: 'postgres://u:secret@db/x', schema: 's1' })).toContain('schema s1');
    expect(describeDatabase({ dialect: 'sqlite', location: '/a.db' })).toBe('sqlite:/a.db');
  });
});
