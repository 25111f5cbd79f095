/**
 * `botflow migrate [--status] [--db file]`: applies pending migrations to the bot's database (the same
 * file `botflow run` uses), or with `--status` only lists applied and pending ones.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../runtime/config.ts';
import { DEFAULT_MIGRATIONS_DIR, openDatabase } from '../store/database.ts';
import { MigrationError, readMigrations, recordedMigrations } from '../store/migrate.ts';
import { SQLite } from '../store/sqlite.ts';
import type { Command } from './command.ts';

const HELP = `usage: botflow migrate [--status] [--db <file>] [--config <file>]

Applies the pending migrations of ${DEFAULT_MIGRATIONS_DIR} to the bot's database (database.path,
BOTFLOW_DATABASE_PATH, or --db), each in its own transaction. \`botflow run\` does the same at start;
run this to migrate ahead of a deployment. --status lists applied and pending migrations, changing nothing.
A database migrated by a newer botflow is refused.`;

export const command: Command = {
  options: ['status', 'db', 'config'],
  summary: 'apply pending database migrations (--status: list them)',
  async run(args) {
    let values: { status?: boolean; db?: string; config?: string; help?: boolean };
    try {
      ({ values } = parseArgs({
        args,
        strict: true,
        options: {
          status: { type: 'boolean' },
          db: { type: 'string' },
          config: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      }));
    } catch (error) {
      console.error(`botflow migrate: ${(error as Error).message}\n\n${HELP}`);
      return 2;
    }
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    let path: string;
    let synchronous: 'FULL' | 'NORMAL';
    try {
      const config = loadConfig({
        argv: [
          ...(values.db ? ['--db', values.db] : []),
          ...(values.config ? ['--config', values.config] : []),
        ],
      });
      path = config.database.path;
      synchronous = config.database.synchronous;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(`botflow migrate: ${error.message}`);
      return 2;
    }
    try {
      if (values.status) return status(path);
      const db = openDatabase({
        path,
        synchronous,
        logger: { info: (o) => console.log(`applied ${o.migration}`) },
      });
      console.log(`${path}: schema version ${db.pragma('user_version', { simple: true })}, up to date`);
      db.close();
      return 0;
    } catch (error) {
      if (!(error instanceof MigrationError)) throw error;
      console.error(`botflow migrate: ${error.message}`);
      return 1;
    }
  },
};

function status(path: string): number {
  const files = readMigrations(DEFAULT_MIGRATIONS_DIR);
  if (path !== ':memory:' && !existsSync(path)) {
    console.log(`${path}: no database yet; ${files.length} migration(s) will be applied at first start`);
    return 0;
  }
  const db = new SQLite(path, { readonly: true });
  try {
    const applied = new Map(recordedMigrations(db).map((m) => [m.name, m.appliedAt]));
    for (const f of files) {
      const at = applied.get(f.name);
      console.log(`${at ? 'applied' : 'pending'}  ${f.name}${at ? `  ${new Date(at).toISOString()}` : ''}`);
      applied.delete(f.name);
    }
    for (const name of applied.keys()) console.log(`unknown  ${name}  (applied by a newer botflow)`);
    return applied.size > 0 ? 1 : 0;
  } finally {
    db.close();
  }
}
