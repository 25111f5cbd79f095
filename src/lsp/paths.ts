/** Documents' URIs as the project's paths. */
import { fileURLToPath } from 'node:url';

/** Where a document is on disk, or undefined for a document that is not a file (an untitled editor). */
export function pathOf(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}
