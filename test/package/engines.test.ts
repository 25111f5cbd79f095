/**
 * `npm install` on the oldest Node the package supports prints no EBADENGINE warning: every package
 * installed for production (the lock's entries that are neither dev nor optional) accepts Node 20.18.1 (undici 7 asks for it).
 * Optional ones that do not (better-sqlite3 13, for Node 22 and later) npm skips without a word.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};
const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));

interface Locked {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  engines?: { node?: string };
}

describe('engines', () => {
  it('every production dependency accepts the oldest Node botflow-engine supports', () => {
    const own = read('package.json') as { engines: { node: string } };
    const oldest = semver.minVersion(own.engines.node)?.version;
    expect(oldest).toBe('20.18.1');
    const lock = read('package-lock.json') as { packages: Record<string, Locked> };
    const refusing = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && !p.dev && !p.optional && !p.devOptional)
      .filter(([, p]) => p.engines?.node && !semver.satisfies(oldest!, p.engines.node))
      .map(([path, p]) => `${path}@${p.version} (node ${p.engines?.node})`);
    expect(refusing).toEqual([]);
  });

  it('better-sqlite3 13 is optional: installed where Node accepts it, and loaded only there', () => {
    const own = read('package.json') as {
      dependencies: Record<string, string>;
      optionalDependencies: Record<string, string>;
    };
    expect(own.dependencies['better-sqlite3-13']).toBeUndefined();
    expect(own.optionalDependencies['better-sqlite3-13']).toMatch(/^npm:better-sqlite3@13\./);
  });
});
