/**
 * The SQLite driver, chosen by Node version. better-sqlite3 13 (Node-API, prebuilt) needs Node 22; on
 * Node 24, better-sqlite3 12's native classes can abort the process when a statement is garbage-collected
 * outside a Node environment ("Assertion failed: (env) != nullptr" in RemoveEnvironmentCleanupHook, seen
 * at once with the writer thread). So: 12 on Node 20, 13 on Node 22 and later. Their APIs are the same.
 * Import the driver from here; `import type Database from 'better-sqlite3'` stays right for types.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { BotflowError } from '../errors/index.ts';

const require = createRequire(import.meta.url);
const major = Number(process.versions.node.split('.')[0]);

/** The package in use: `better-sqlite3` (12, Node 20) or `better-sqlite3-13` (13, Node 22 and later). */
export const SQLITE_PACKAGE = major >= 22 ? 'better-sqlite3-13' : 'better-sqlite3';

/** better-sqlite3's `Database` class, from the package that fits this Node. */
export const SQLite: typeof BetterSqlite3 = load();

function load(): typeof BetterSqlite3 {
  try {
    return require(SQLITE_PACKAGE) as typeof BetterSqlite3;
  } catch (error) {
    // better-sqlite3-13 is an optional dependency (npm skips it on Node 20 without a warning), so an
    // install on Node 20 that later runs on Node 22 lacks it.
    if (SQLITE_PACKAGE !== 'better-sqlite3-13' || (error as { code?: string }).code !== 'MODULE_NOT_FOUND')
      throw error;
    throw new BotflowError(
      'BOTFLOW_SQLITE_MISSING',
      `Node ${process.versions.node} needs the optional dependency better-sqlite3-13, which is not installed ` +
        '(node_modules was installed with an older Node, or its build failed): run npm install again with this Node',
      { cause: error },
    );
  }
}
