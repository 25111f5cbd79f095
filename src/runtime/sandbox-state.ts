/** Where the embedded default keeps the sandbox's own state (its chats and messages). */
import { dirname, join } from 'node:path';

/** The sandbox's state file, next to the engine's database; none for an in-memory database. */
export function sandboxStatePath(databasePath: string): string | undefined {
  return databasePath === ':memory:' ? undefined : join(dirname(databasePath), 'sandbox-platform.db');
}
