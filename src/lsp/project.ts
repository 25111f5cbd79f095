/**
 * The project an editor works on, found the way `botflow run` finds it: the configuration file in the
 * workspace's root names the flows folder (default `flows`), which holds the flow files, the catalogs
 * (`locales/*.ftl`), the registry (`registry.ts`) and the transcripts (`*.test.yaml`, at any depth). The
 * files are read from disk; an open editor's text takes its file's place until it is closed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { FLOW_SUFFIX, loadRegistry } from '../flows/load.ts';
import type { Problem } from '../flows/problems.ts';
import { EMPTY_REGISTRY, type Registry } from '../flows/registry.ts';
import { loadConfig } from '../runtime/config.ts';
import { findConfigFile, readConfigFile } from '../runtime/config-sources.ts';
import { TRANSCRIPT_SUFFIX } from '../testing/load.ts';
import type { ProjectSnapshot, SourceFile } from './language-service.ts';

/** What kind of project file a path is, or undefined when the server does not read it. */
export type FileKind = 'flow' | 'catalog' | 'transcript' | 'registry';

/** The flows folder of the project at `root`: the configuration's `flows.dir`, else `<root>/flows`. */
export function findFlowsDir(root: string): string {
  try {
    return loadConfig({ cwd: root, argv: [] }).flows.dir;
  } catch {
    // A configuration with other mistakes (a missing token in webhook mode) still names the flows folder.
    try {
      const file = findConfigFile(undefined, root);
      const dir = file
        ? (readConfigFile(file, root).values.flows as { dir?: unknown } | undefined)?.dir
        : undefined;
      if (typeof dir === 'string' && dir) return resolve(root, dir);
    } catch {
      // A configuration that cannot be read: the default folder.
    }
    return resolve(root, 'flows');
  }
}

/** A project's files, the open editors' texts over them, and its registry. */
export class Project {
  readonly flowsDir: string;
  registry: Registry = EMPTY_REGISTRY;
  /** What went wrong loading the registry (one problem at its first line), if anything. */
  registryProblems: Problem[] = [];
  readonly #disk = new Map<string, string>();
  readonly #open = new Map<string, string>();
  #snapshot: ProjectSnapshot | undefined;
  /** Counts changes, so a check knows whether what it read is still the latest. */
  version = 0;

  constructor(readonly root: string) {
    this.flowsDir = findFlowsDir(root);
    this.rescan();
  }

  /** What `file` (absolute) is to the project. */
  kindOf(file: string): FileKind | undefined {
    const inside = relative(this.flowsDir, file);
    if (inside.startsWith('..') || resolve(this.flowsDir, inside) !== file) return undefined;
    const name = basename(file);
    if (file.endsWith(TRANSCRIPT_SUFFIX)) return 'transcript';
    if (!inside.includes(sep) && name.endsWith(FLOW_SUFFIX)) return 'flow';
    if (inside === join('locales', name) && name.endsWith('.ftl')) return 'catalog';
    if (/\.(ts|js|mts|mjs)$/.test(name)) return 'registry';
    return undefined;
  }

  /** Reads every flow, catalog and transcript of the flows folder from disk again. */
  rescan(): void {
    this.#disk.clear();
    for (const file of listFiles(this.flowsDir)) {
      const kind = this.kindOf(file);
      if (kind && kind !== 'registry') this.#disk.set(file, readFileSync(file, 'utf8'));
    }
    this.changed();
  }

  /** Reads one file from disk again (saved, created or deleted). */
  reread(file: string): void {
    const kind = this.kindOf(file);
    if (!kind || kind === 'registry') return;
    if (existsSync(file)) this.#disk.set(file, readFileSync(file, 'utf8'));
    else this.#disk.delete(file);
    this.changed();
  }

  /** An editor's text for `file` (opened or changed), or none (closed: the file on disk again). */
  setOpen(file: string, text: string | undefined): void {
    if (text === undefined) this.#open.delete(file);
    else this.#open.set(file, text);
    this.changed();
  }

  /** The text of a file as the editor sees it (the registry's code is read from disk when asked for). */
  text(file: string): string | undefined {
    return this.#open.get(file) ?? this.#disk.get(file) ?? (this.kindOf(file) ? readText(file) : undefined);
  }

  /** Imports the registry again (at start, and when its code is saved). */
  async loadRegistry(): Promise<void> {
    const loaded = await loadRegistry(this.flowsDir);
    this.registry = loaded.registry;
    this.registryProblems = loaded.problems.map((p) => ({ ...p, file: resolve(p.file) }));
    this.changed();
  }

  /** The registry's file, if the project has one. */
  registryFile(): string | undefined {
    return ['registry.ts', 'registry.js'].map((n) => join(this.flowsDir, n)).find((f) => existsSync(f));
  }

  /** Every file of a kind, with its text, sorted by path. */
  files(kind: FileKind): SourceFile[] {
    const paths = new Set([...this.#disk.keys(), ...this.#open.keys()]);
    return [...paths]
      .filter((f) => this.kindOf(f) === kind)
      .sort()
      .map((file) => ({ file, text: this.text(file)! }));
  }

  /** The project as the language service takes it (kept until the next change). */
  snapshot(): ProjectSnapshot {
    if (this.#snapshot) return this.#snapshot;
    const registryFile = this.registryFile();
    const registryText = registryFile ? this.text(registryFile) : undefined;
    this.#snapshot = {
      root: this.root,
      flows: this.files('flow'),
      catalogs: this.files('catalog').map((c) => ({ ...c, locale: basename(c.file, '.ftl') })),
      transcripts: this.files('transcript'),
      registry: this.registry,
      ...(registryFile && registryText !== undefined
        ? { registryFile: { file: registryFile, text: registryText } }
        : {}),
    };
    return this.#snapshot;
  }

  private changed(): void {
    this.#snapshot = undefined;
    this.version++;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Every file under `dir` (skipping node_modules and dot folders). */
function listFiles(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name.startsWith('.')) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? listFiles(path) : [path];
  });
}
