import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MigrationError, openDatabase } from '../../src/store/database.ts';
import { appliedMigrations, migrate } from '../../src/store/migrate.ts';

let dir: string;
let migrations: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'botflow-migrate-'));
  migrations = join(dir, 'migrations');
  mkdirSync(migrations);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('openDatabase', () => {
  it('creates the database with the shipped migrations, in WAL mode with synchronous=FULL', () => {
    const db = openDatabase({ path: join(dir, 'bot.db') });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(appliedMigrations(db).map((m) => m.name)).toContain('001_inbox.sql');
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'inbox'").pluck().get()).toBe('inbox');
    db.close();
  });

  it('honours synchronous=NORMAL', () => {
    const db = openDatabase({ path: join(dir, 'bot.db'), synchronous: 'NORMAL' });
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    db.close();
  });
});

describe('migrate', () => {
  it('applies numbered files in order, once, and records them', () => {
    writeFileSync(join(migrations, '002_b.sql'), 'ALTER TABLE t ADD COLUMN b TEXT;');
    writeFileSync(join(migrations, '001_a.sql'), 'CREATE TABLE t (a TEXT);');
    writeFileSync(join(migrations, 'README.txt'), 'not a migration');
    const path = join(dir, 'bot.db');
    const db = openDatabase({ path, migrationsDir: migrations });
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(appliedMigrations(db).map((m) => m.name)).toEqual(['001_a.sql', '002_b.sql']);
    db.prepare('INSERT INTO t (a, b) VALUES (?, ?)').run('x', 'y');
    expect(migrate(db, migrations).applied).toEqual([]);
    db.close();

    writeFileSync(join(migrations, '003_c.sql'), 'CREATE INDEX t_a ON t (a);');
    const reopened = openDatabase({ path, migrationsDir: migrations });
    expect(appliedMigrations(reopened).map((m) => m.name)).toEqual(['001_a.sql', '002_b.sql', '003_c.sql']);
    expect(reopened.prepare('SELECT b FROM t').pluck().get()).toBe('y');
    reopened.close();
  });

  it('rolls a failing migration back entirely and names the file', () => {
    writeFileSync(join(migrations, '001_a.sql'), 'CREATE TABLE t (a TEXT);');
    writeFileSync(
      join(migrations, '002_bad.sql'),
      'CREATE TABLE u (x TEXT); INSERT INTO nowhere VALUES (1);',
    );
    const path = join(dir, 'bot.db');
    expect(() => openDatabase({ path, migrationsDir: migrations })).toThrow(/002_bad\.sql failed.*nowhere/);
    writeFileSync(join(migrations, '002_bad.sql'), 'CREATE TABLE u (x TEXT);');
    const db = openDatabase({ path, migrationsDir: migrations });
    expect(appliedMigrations(db).map((m) => m.name)).toEqual(['001_a.sql', '002_bad.sql']);
    db.close();
  });

  it('refuses a database migrated by newer code, with a message that says what to do', () => {
    writeFileSync(join(migrations, '001_a.sql'), 'CREATE TABLE t (a TEXT);');
    writeFileSync(join(migrations, '002_b.sql'), 'CREATE TABLE u (b TEXT);');
    const path = join(dir, 'bot.db');
    openDatabase({ path, migrationsDir: migrations }).close();
    rmSync(join(migrations, '002_b.sql'));
    let error: unknown;
    try {
      openDatabase({ path, migrationsDir: migrations });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toMatch(/newer botflow.*002_b\.sql.*Upgrade botflow/);
  });

  it('rejects badly named and duplicate-numbered files', () => {
    writeFileSync(join(migrations, '1_a.sql'), 'SELECT 1;');
    expect(() => migrate(openDatabase({ path: ':memory:', migrationsDir: dir }), migrations)).toThrow(
      /NNN_name\.sql/,
    );
    rmSync(join(migrations, '1_a.sql'));
    writeFileSync(join(migrations, '001_a.sql'), 'SELECT 1;');
    writeFileSync(join(migrations, '001_b.sql'), 'SELECT 1;');
    expect(() => openDatabase({ path: ':memory:', migrationsDir: migrations })).toThrow(/share the number 1/);
  });
});
