/**
 * Conversations spread over partitions: the unit that processes sharing one database own (leases), and
 * that every stored row of a conversation carries. One process owns them all.
 */

/** How many partitions there are (fixed: stored with the rows). */
export const PARTITIONS = 64;

/**
 * A 32-bit hash of `text`: FNV-1a, then murmur3's finaliser so that texts differing in a character or two
 * (conversation keys, process names) spread evenly. Fixed forever: partitions are stored with the rows.
 */
export function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** The partition of a conversation (events without one go to partition 0). */
export function partitionOf(conversationKey: string | null | undefined): number {
  return conversationKey ? hash32(conversationKey) % PARTITIONS : 0;
}
