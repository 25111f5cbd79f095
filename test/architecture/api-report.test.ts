/**
 * The public API is committed: api/<entry>.api.md lists every name each package entry exports, with its
 * kind and declared signature (scripts/api-report.ts). A change of an export without its report fails here,
 * so every change of the public API shows in a diff and is reviewed.
 */
import { describe, expect, it } from 'vitest';
import { apiReports, entries, staleReports } from '../../scripts/api-report.ts';

describe('the API reports in api/', () => {
  // One compiler program for all entries: ~10 s of CPU.
  const reports = apiReports();

  it('has one report per package entry', () => {
    expect([...reports.keys()].sort()).toEqual(
      entries()
        .map((e) => e.report)
        .sort(),
    );
    expect(reports.size).toBe(8);
  });

  it('match the code (after changing an export: `npm run api:update`, review and commit api/)', () => {
    expect(
      staleReports(reports),
      'the public API changed: run `npm run api:update`, review the diff of api/ and note it in CHANGELOG.md',
    ).toEqual([]);
  });

  it('tells a report that differs (the check itself works)', () => {
    const client = reports.get('client.api.md')!;
    expect(client).toContain('class BotApi ');
    expect(staleReports(new Map([['client.api.md', `${client}const added: number;\n`]]))).toEqual([
      'client.api.md',
    ]);
    expect(staleReports(new Map([['missing.api.md', '']]))).toEqual(['missing.api.md']);
  });
});
