import { describe, expect, it } from 'vitest';
import { DATABASE_URL_FORMS, databaseIdentity, describeDatabase, parseDatabaseUrl } from './database-config.js';
import { REGISTERED_DIALECTS } from './dialects/dialect-registry.js';
import { demoCredentialsFileName } from './use-cases/demo-data.js';

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

  it('reads file: URLs as the file they name, never as a folder called "file:"', () => {
    const sqliteAt = (location: string) => ({ dialect: 'sqlite', location });
    expect(parseDatabaseUrl('file:/tmp/x.sqlite', '/w')).toEqual(sqliteAt('/tmp/x.sqlite'));
    expect(parseDatabaseUrl('file:///tmp/x.sqlite', '/w')).toEqual(sqliteAt('/tmp/x.sqlite'));
    expect(parseDatabaseUrl('FILE://localhost/tmp/x.sqlite', '/w')).toEqual(sqliteAt('/tmp/x.sqlite'));
    expect(parseDatabaseUrl('file:data/x.sqlite', '/w')).toEqual(sqliteAt('/w/data/x.sqlite'));
    expect(parseDatabaseUrl('file:./data/x.sqlite', '/w')).toEqual(sqliteAt('/w/data/x.sqlite'));
    expect(parseDatabaseUrl('file:///srv/my%20data/x.sqlite', '/w')).toEqual(sqliteAt('/srv/my data/x.sqlite'));
    expect(parseDatabaseUrl('file::memory:', '/w')).toEqual(sqliteAt(':memory:'));
  });

  it('refuses what a file: URL cannot mean here, naming the problem', () => {
    expect(() => parseDatabaseUrl('file://db.internal/x.sqlite')).toThrow(/host "db.internal".*this machine/);
    expect(() => parseDatabaseUrl('file:/tmp/x.sqlite?mode=ro')).toThrow(/no query/);
    expect(() => parseDatabaseUrl('file:')).toThrow(/names no file/);
    expect(() => parseDatabaseUrl('file:/tmp/%zz.sqlite')).toThrow(/percent escape/);
    expect(DATABASE_URL_FORMS).toContain('file:<path>');
  });

  it('is read by exactly one registered dialect, whatever form it takes', () => {
    const forms = ['', 'sqlite:./x.db', 'sqlite:///var/x.db', 'sqlite::memory:', 'file:/var/x.db', 'file:///var/x.db', '/tmp/a.sqlite', 'data/x.db', 'postgres://u@h/db', 'POSTGRESQL://h/db'];
    for (const text of forms) {
      const readers = REGISTERED_DIALECTS.filter((dialect) => dialect.url.parse(text, '/w') !== undefined).map((dialect) => dialect.name);
      expect(readers, `"${text}"`).toHaveLength(1);
    }
    expect(REGISTERED_DIALECTS.filter((dialect) => dialect.url.parse('mysql://db/x', '/w') !== undefined)).toEqual([]);
  });

  it('refuses other schemes and an empty sqlite: URL with a clear message', () => {
    expect(() => parseDatabaseUrl('mysql://db/x')).toThrow(/not supported/);
    expect(() => parseDatabaseUrl('mysql://db/x')).toThrow(DATABASE_URL_FORMS);
    expect(DATABASE_URL_FORMS).toMatch(/sqlite:.*postgres:\/\//);
    expect(() => parseDatabaseUrl('sqlite:')).toThrow(/names no file/);
  });

  it('never prints a password', () => {
    expect(describeDatabase({ dialect: 'postgres', url: 'postgres://u:secret@db/x' })).not.toContain('secret');
    expect(describeDatabase({ dialect: 'postgres', url: 'postgres://u:secret@db/x', schema: 's1' })).toContain('schema s1');
    // A password passed as a query parameter (pg and libpq accept it there too) is masked as well.
    const inQuery = describeDatabase({ dialect: 'postgres', url: 'postgres://db/x?user=u&password=hunter2&sslpassword=key-pass&application_name=pits' });
    expect(inQuery).not.toContain('hunter2');
    expect(inQuery).not.toContain('key-pass');
    expect(inQuery).toContain('application_name=pits');
    expect(describeDatabase({ dialect: 'sqlite', location: '/a.db' })).toBe('sqlite:/a.db');
  });
});

describe('demo credentials per database', () => {
  it('names a database by its location, never its password', () => {
    expect(databaseIdentity(parseDatabaseUrl('data/demo.sqlite', '/repo'))).toBe('sqlite:/repo/data/demo.sqlite');
    expect(databaseIdentity(parseDatabaseUrl('sqlite:./data/demo.sqlite', '/repo'))).toBe('sqlite:/repo/data/demo.sqlite');
    const pg = databaseIdentity(parseDatabaseUrl('postgres://pits:s3cret@DB.internal:5433/pits'));
    expect(pg).toBe('postgres://db.internal:5433/pits');
    expect(pg).not.toContain('s3cret');
    expect(databaseIdentity(parseDatabaseUrl('postgresql://pits:other@db.internal:5433/pits'))).toBe(pg);
    expect(databaseIdentity(parseDatabaseUrl('postgres://postgres@127.0.0.1/test'))).toBe('postgres://127.0.0.1:5432/test');
    expect(databaseIdentity({ dialect: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/test', schema: 'run_1' })).toBe('postgres://127.0.0.1:5432/test?schema=run_1');
    const searchPath = `postgres://postgres@127.0.0.1:5432/test?options=${encodeURIComponent('-c search_path=run_2')}`;
    expect(databaseIdentity(parseDatabaseUrl(searchPath))).toBe('postgres://127.0.0.1:5432/test?schema=run_2');
  });

  it('gives each database a file of its own', () => {
    const sqlite = demoCredentialsFileName(parseDatabaseUrl('data/demo.sqlite', '/repo'));
    const other = demoCredentialsFileName(parseDatabaseUrl('data/other.sqlite', '/repo'));
    const pg = demoCredentialsFileName(parseDatabaseUrl('postgres://postgres@127.0.0.1:5432/test'));
    expect(sqlite).toMatch(/^sqlite-[0-9a-f]{12}\.json$/);
    expect(pg).toMatch(/^postgres-[0-9a-f]{12}\.json$/);
    expect(new Set([sqlite, other, pg]).size).toBe(3);
    expect(demoCredentialsFileName(parseDatabaseUrl('sqlite:data/demo.sqlite', '/repo'))).toBe(sqlite);
  });
});
