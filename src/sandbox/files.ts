/**
 * File contents kept by the sandbox (uploads and files people send), in memory: a persisted sandbox
 * remembers tokens and messages, not the bytes.
 */
import { opaqueToken } from './ids.ts';

export interface StoredFile {
  bytes: Buffer;
  contentType: string;
  filename?: string;
}

/** In-memory file store, bounded by total size (oldest dropped first). */
export class FileStore {
  private files = new Map<string, StoredFile>();
  private total = 0;

  constructor(private readonly maxBytes = 256 * 1024 * 1024) {}

  /** Stores bytes and returns the new file id. */
  put(file: StoredFile): string {
    const id = opaqueToken(12);
    this.files.set(id, file);
    this.total += file.bytes.length;
    for (const [oldId, old] of this.files) {
      if (this.total <= this.maxBytes) break;
      this.files.delete(oldId);
      this.total -= old.bytes.length;
    }
    return id;
  }

  get(id: string): StoredFile | undefined {
    return this.files.get(id);
  }
}
