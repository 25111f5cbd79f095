/**
 * A `BotsCatalog` held in memory: what a deployment uses when it is given no catalog (`createDeployment`,
 * `botflow run` until the catalog lives in the database), and what the tests use. It forgets everything
 * when the process ends: the configuration's `bots:` seeds it again at the next start.
 */
import type { BotRecord, BotsCatalog } from '../store/ports/bots.ts';

/** A catalog in memory; `version()` moves with every change. */
export function memoryBotsCatalog(initial: readonly BotRecord[] = []): BotsCatalog {
  const records = new Map(initial.map((record) => [record.name, { ...record }]));
  let version = 0;
  return {
    list: async () => [...records.values()].map((record) => ({ ...record })),
    get: async (name) => {
      const record = records.get(name);
      return record && { ...record };
    },
    add: async (record) => {
      records.set(record.name, { ...record });
      version++;
    },
    update: async (name, patch) => {
      const record = records.get(name);
      if (!record) return;
      records.set(name, { ...record, ...patch, name });
      version++;
    },
    remove: async (name) => {
      if (records.delete(name)) version++;
    },
    version: async () => version,
    close: async () => {},
  };
}
