/**
 * Lists the docs keep by hand, checked against the code they describe (issue 37): the README's commands
 * table against the commands `botflow --help` lists (src/cli.ts), the step kinds docs/flows.md describes
 * (a `**`type: x`**` paragraph each) and docs/ARCHITECTURE.md's table of kinds (folder and drawing) against
 * the kinds' registry (src/flows/kinds/registry.ts), and the codes of docs/errors.md against the catalogue
 * (src/errors/catalogue.ts). A command, kind or code added to the code without its line in the docs fails
 * here, and so does a line left for one that went.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli.ts';
import { CATALOGUE } from '../../src/errors/index.ts';
import { BUILTIN_KINDS, KIND_NAMES } from '../../src/flows/kinds/registry.ts';
import { drawingOf } from '../../src/flows/kinds/views.ts';

const read = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');

afterEach(() => vi.restoreAllMocks());

/** The commands of the README's "## Commands" table: `botflow NAME …` in its first column. */
function readmeCommands(readme: string): string[] {
  const section = readme.split(/^## Commands$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/^\| `botflow ([a-z][a-z-]*)/gm)].map((m) => m[1]!);
}

/** The kinds docs/flows.md describes: a paragraph or item opening with **`type: kind`**. */
function documentedKinds(page: string): string[] {
  return [...page.matchAll(/^(?:- )?\*\*`type: ([a-z_]+)`\*\*/gm)].map((m) => m[1]!);
}

/** The codes of docs/errors.md: an item opening with **`BOTFLOW_…`**. */
function documentedCodes(page: string): string[] {
  return [...page.matchAll(/^- \*\*`(BOTFLOW_[A-Z0-9_]+)`\*\*/gm)].map((m) => m[1]!);
}

/** What the docs lack, what they list that the code has not, and what they list twice. */
function differences(documented: readonly string[], actual: readonly string[]) {
  return {
    missing: actual.filter((name) => !documented.includes(name)),
    unknown: documented.filter((name) => !actual.includes(name)),
    twice: documented.filter((name, i) => documented.indexOf(name) !== i),
  };
}

const NONE = { missing: [], unknown: [], twice: [] };

/** The commands as `botflow --help` lists them (`  name  summary` under "commands:"). */
async function cliCommands(): Promise<string[]> {
  const out: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => out.push(parts.join(' ')));
  expect(await main(['--help'])).toBe(0);
  vi.restoreAllMocks();
  const lines = out.join('\n').split('\n');
  const from = lines.indexOf('commands:');
  expect(from, 'botflow --help has a "commands:" list').toBeGreaterThan(0);
  return lines
    .slice(from + 1)
    .map((line) => /^ {2}([a-z][a-z-]*)\s/.exec(line)?.[1])
    .filter((name) => name !== undefined);
}

const stepKinds = (): string[] => [...KIND_NAMES];

/** The rows of docs/ARCHITECTURE.md's table of kinds: | `kind` | `src/flows/kinds/<folder>/` | `shape`, "label" |. */
function architectureKinds(page: string) {
  return [
    ...page.matchAll(/^\| `([a-z_]+)` +\| `src\/flows\/kinds\/([a-z_]+)\/` +\| `([a-z]+)`, "([^"]*)" +\|$/gm),
  ].map(([, kind, folder, shape, label]) => ({ kind, folder, shape, label }));
}

describe('lists the docs keep by hand', () => {
  it("the README's commands table lists every command of botflow --help, and no other", async () => {
    const commands = await cliCommands();
    expect(commands).toContain('campaign');
    expect(differences(readmeCommands(read('README.md')), commands)).toEqual(NONE);
  });

  it('docs/flows.md describes every step kind of the flow schema, and no other', () => {
    const kinds = stepKinds();
    expect(kinds).toContain('handoff');
    expect(differences(documentedKinds(read('docs/flows.md')), kinds)).toEqual(NONE);
  });

  it("docs/ARCHITECTURE.md's table gives every kind of the registry its folder and drawing, in order", () => {
    const rows = architectureKinds(read('docs/ARCHITECTURE.md'));
    expect(rows).toEqual(
      BUILTIN_KINDS.map((k) => {
        const { shape, label } = drawingOf(k);
        return { kind: k.type, folder: k.type, shape, label };
      }),
    );
    for (const { folder } of rows)
      expect(existsSync(new URL(`../../src/flows/kinds/${folder}/index.ts`, import.meta.url)), folder).toBe(
        true,
      );
  });

  it('docs/errors.md gives every code of the catalogue its line, and documents no other', () => {
    expect(differences(documentedCodes(read('docs/errors.md')), Object.keys(CATALOGUE))).toEqual(NONE);
  });

  it('each check names an omission, a line for something that is not there, and a line written twice', async () => {
    const readme = read('README.md').replace(/^\| `botflow campaign .*\n/m, '');
    expect(differences(readmeCommands(readme), await cliCommands()).missing).toEqual(['campaign']);
    const flows = read('docs/flows.md').replace('**`type: branch`**', '**`type: brunch`**');
    expect(differences(documentedKinds(flows), stepKinds())).toMatchObject({
      missing: ['branch'],
      unknown: ['brunch'],
    });
    const code = Object.keys(CATALOGUE)[0]!;
    const errors = read('docs/errors.md');
    const without = errors.replace(new RegExp(`^- \\*\\*\`${code}\`\\*\\*`, 'm'), '- **`BOTFLOW_MADE_UP`**');
    expect(differences(documentedCodes(without), Object.keys(CATALOGUE))).toMatchObject({
      missing: [code],
      unknown: ['BOTFLOW_MADE_UP'],
    });
    expect(
      differences(documentedCodes(`${errors}\n- **\`${code}\`**: again`), Object.keys(CATALOGUE)).twice,
    ).toEqual([code]);
  });
});
