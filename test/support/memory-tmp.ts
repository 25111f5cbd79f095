/**
 * Vitest global setup: the tests' temporary files (their SQLite databases, above all) go to a folder of
 * their own on a memory filesystem when the machine has one (/dev/shm with room to spare). They are still
 * real SQLite files in WAL mode; only the disk is gone: a commit's fsync (synchronous = FULL) costs
 * nothing there instead of a round trip to a shared disk, which on a loaded CI machine took half of a
 * transcript run. Nothing in this project tests power-loss durability (a process crash, the e2e
 * project's SIGKILLs, loses nothing an fsync would have kept).
 *
 * Global setup runs in the main vitest process before the workers are forked, so the workers and the
 * child processes the tests start all see TMPDIR (os.tmpdir() reads it on every call). The folder is
 * removed after the run, with whatever a test forgot in it. Without /dev/shm (macOS, Windows) or with a
 * small one (a container's 64 MB), nothing changes. BOTFLOW_TEST_DISK_TMP=1 keeps the disk.
 */
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

/** The memory filesystem used, and the room it must have free. */
export const MEMORY_FS = '/dev/shm';
export const MIN_FREE_BYTES = 2 * 1024 ** 3;

/** `dir` when it is there with at least `minFree` bytes free, else undefined. */
export function roomyFolder(dir: string, minFree: number): string | undefined {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize >= minFree ? dir : undefined;
  } catch {
    return undefined;
  }
}

export default function setup(): (() => void) | undefined {
  if (process.env.BOTFLOW_TEST_DISK_TMP) return undefined;
  const parent = roomyFolder(MEMORY_FS, MIN_FREE_BYTES);
  if (!parent) return undefined;
  const dir = mkdtempSync(join(parent, 'botflow-tests-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true });
  };
}
