/**
 * Where each configuration value came from: the file (with line and column), an environment variable or a
 * command-line flag. `config.ts` merges the sources; this file reads them and remembers the origin of every
 * value so that a problem can be reported where the person must fix it.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { type Document, isMap, isPair, isScalar, LineCounter, parseDocument } from 'yaml';
import { BotflowError } from '../errors/index.ts';
import { KEYS, type KeySpec } from './config-schema.ts';

/** The origin of one value. */
export type ValueSource =
  | { kind: 'file'; file: string; line?: number; col?: number }
  | { kind: 'env'; name: string }
  | { kind: 'flag'; name: string }
  /** Set in code: `createBot({ config })`; `name` is the key as written there (`config.webhook.url`). */
  | { kind: 'code'; name: string }
  | { kind: 'default' };

/** A configuration file as read: its values and a way to find the line of any of them. */
export interface ConfigFile {
  /** Absolute path. */
  path: string;
  /** The path as shown in messages (relative to the working directory when shorter). */
  shown: string;
  values: Record<string, unknown>;
  /** The position of the value (or, with `key`, of that key inside the mapping) at `path`. */
  locate(path: (string | number)[], key?: string): { line: number; col: number } | undefined;
}

/** A problem found while reading a source, before validation. */
export class SourceError extends BotflowError {
  override name = 'SourceError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BOTFLOW_CONFIG_SOURCE', message, options);
  }
}

/** The file names looked for in the working directory when none is named. */
export const DEFAULT_CONFIG_FILES = ['botflow.config.yaml', 'botflow.config.yml', 'botflow.config.json'];

/** Finds the configuration file: the one named by `--config` / BOTFLOW_CONFIG, else a default name in `cwd`. */
export function findConfigFile(named: string | undefined, cwd: string): string | undefined {
  if (named) {
    const path = resolve(cwd, named);
    if (!existsSync(path)) {
      throw new SourceError(
        `the configuration file ${named} does not exist (resolved to ${path}): fix the path, or remove ` +
          '--config / BOTFLOW_CONFIG to use botflow.config.yaml in the working directory',
      );
    }
    return path;
  }
  return DEFAULT_CONFIG_FILES.map((name) => resolve(cwd, name)).find((path) => existsSync(path));
}

/** Reads a YAML or JSON configuration file, keeping positions for messages. */
export function readConfigFile(path: string, cwd: string): ConfigFile {
  const shownRelative = relative(cwd, path);
  const shown = shownRelative.length < path.length && !shownRelative.startsWith('..') ? shownRelative : path;
  const text = readFileSync(path, 'utf8');
  const lineCounter = new LineCounter();
  // JSON is (almost) YAML: one parser gives positions for both formats.
  const doc: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax) {
    const at = lineCounter.linePos(syntax.pos[0]);
    throw new SourceError(
      `${shown}:${at.line}:${at.col}: not valid ${formatName(path)}: ${firstLine(syntax.message)}`,
    );
  }
  if (path.endsWith('.json')) {
    try {
      JSON.parse(text);
    } catch (error) {
      throw new SourceError(`${shown}: not valid JSON: ${(error as Error).message}`);
    }
  }
  const values = doc.toJS() ?? {};
  if (typeof values !== 'object' || Array.isArray(values)) {
    throw new SourceError(
      `${shown}:1:1: the configuration must be a mapping of keys (token, mode, webhook, …), not a ${Array.isArray(values) ? 'list' : typeof values}`,
    );
  }
  const locate = (at: (string | number)[], key?: string) => {
    const node = at.length === 0 ? doc.contents : doc.getIn(at, true);
    let offset: number | undefined;
    if (key !== undefined && isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === key);
      offset = pair && isScalar(pair.key) ? pair.key.range?.[0] : undefined;
    } else if (node && typeof node === 'object' && 'range' in node) {
      offset = (node as { range?: [number, number, number] }).range?.[0];
    }
    return offset === undefined ? undefined : lineCounter.linePos(offset);
  };
  return { path, shown, values: values as Record<string, unknown>, locate };
}

function formatName(path: string): string {
  return path.endsWith('.json') ? 'JSON' : 'YAML';
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

/** Converts the text of an environment variable or flag to the key's kind; leaves bad text for the schema to report. */
export function convertText(spec: KeySpec, text: string): unknown {
  const trimmed = text.trim();
  switch (spec.kind) {
    case 'int':
      return /^-?\d+$/.test(trimmed) ? Number(trimmed) : text;
    case 'number':
      return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : text;
    case 'boolean':
      if (/^(true|1|yes|on)$/i.test(trimmed)) return true;
      if (/^(false|0|no|off)$/i.test(trimmed)) return false;
      return text;
    case 'list':
      return trimmed === ''
        ? []
        : trimmed
            .split(',')
            .map((item) => item.trim())
            .filter(Boolean);
    default:
      return text;
  }
}

/** The value at a dotted path of a plain object. */
export function getPath(object: Record<string, unknown>, path: string): unknown {
  let current: unknown = object;
  for (const part of path.split('.')) {
    if (!current || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** Sets the value at a dotted path, creating (or replacing non-object) parents. */
export function setPath(object: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let current = object;
  for (const part of parts.slice(0, -1)) {
    const next = current[part];
    if (!next || typeof next !== 'object' || Array.isArray(next)) current[part] = {};
    current = current[part] as Record<string, unknown>;
  }
  current[parts.at(-1)!] = value;
}

/** Resolves a path-valued setting against the folder of the file it came from, or the working directory. */
export function resolveSettingPath(value: string, source: ValueSource | undefined, cwd: string): string {
  if (isAbsolute(value)) return value;
  return resolve(source?.kind === 'file' ? dirname(source.file) : cwd, value);
}

/** The key spec whose path is `path` or a prefix of it (`caFiles.1` → caFiles). */
export function specFor(path: string): KeySpec | undefined {
  return KEYS.find((k) => path === k.path || path.startsWith(`${k.path}.`));
}

/** Why a `caFiles` entry cannot be used, or undefined when it holds a PEM certificate. */
export function unreadableCertificate(path: string): string | undefined {
  if (!existsSync(path)) return 'does not exist: fix the path in caFiles / BOTFLOW_CA_FILES';
  if (!statSync(path).isFile()) return 'is not a file: caFiles lists PEM certificate files';
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return `cannot be read (${(error as NodeJS.ErrnoException).code}): check its permissions`;
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    return 'holds no PEM certificate (-----BEGIN CERTIFICATE-----): convert a DER file with `openssl x509 -inform der -in ca.cer -out ca.pem`';
  }
  return undefined;
}
