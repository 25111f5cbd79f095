/** A bot a deployment serves (never its token: where to read it). */
export interface BotRecord {
  name: string;
  alias: string;
  botId?: number;
  username?: string;
  tokenFile?: string;
  tokenEnv?: string;
  paused: boolean;
  pausedReason?: string;
  addedAt: number;
  removedAt?: number;
}
/** Which bots a deployment serves; changed at run time by `botflow bots add|remove|pause`. */
export interface BotsCatalog {
  list(): Promise<BotRecord[]>;
  get(name: string): Promise<BotRecord | undefined>;
  add(record: BotRecord): Promise<void>;
  update(name: string, patch: Partial<Omit<BotRecord, 'name'>>): Promise<void>;
  remove(name: string): Promise<void>;
  version(): Promise<number>;
  close(): Promise<void>;
}
