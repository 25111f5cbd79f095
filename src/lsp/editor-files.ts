/**
 * The files the playground's editor may read and write: flow files inside the flows folder, named by their
 * path relative to it. Anything else (`..`, an absolute path, a symlink that leads out, another kind of
 * file) is refused before a byte is read or written.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { FLOW_SUFFIX } from '../flows/load.ts';

/** A file the editor may not touch: answered with 403 and the reason. */
export class EditorPathError extends Error {}

/** What the editor knows of a file: its path in the flows folder, its text and version. */
export interface EditorFile {
  path: string;
  text: string;
  version: string;
}

/** The version of a text: its content hash (a save names the version it was made from). */
export function versionOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The absolute path of `path` (relative to `flowsDir`), or throws EditorPathError when it is not a flow file there. */
export function resolveFlowFile(flowsDir: string, path: unknown): string {
  if (typeof path !== 'string' || path === '') throw new EditorPathError('name the flow file: { path }');
  if (isAbsolute(path) || path.includes('\0') || path.split(/[\\/]/).includes('..'))
    throw new EditorPathError(`${path}: only flow files inside the flows folder can be edited here`);
  if (!path.endsWith(FLOW_SUFFIX))
    throw new EditorPathError(`${path}: only *${FLOW_SUFFIX} files can be edited here`);
  const root = realpathSync(flowsDir);
  const file = join(root, path);
  // The real place of the file (or, for a new one, of its folder): a symlink may not lead out of the folder.
  const real = existsSync(file)
    ? realpathSync(file)
    : join(realpathSync(dirname(file)), file.slice(dirname(file).length + 1));
  const inside = relative(root, real);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside))
    throw new EditorPathError(
      `${path}: it leads out of the flows folder (a symlink?): edit it in your editor`,
    );
  return real;
}

/** Reads a flow file of the folder. */
export function readEditorFile(flowsDir: string, path: string): EditorFile | undefined {
  const file = resolveFlowFile(flowsDir, path);
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  return { path, text, version: versionOf(text) };
}

/** The flow files of the folder, relative to it (sorted). */
export function listFlowFiles(flowsDir: string): string[] {
  if (!existsSync(flowsDir)) return [];
  return readdirSync(flowsDir)
    .filter((n) => n.endsWith(FLOW_SUFFIX))
    .sort();
}

/** The file (relative to the folder) whose `flow:` is `id`; `<id>.flow.yaml` first, as the checker expects. */
export function fileOfFlow(flowsDir: string, id: string): string | undefined {
  const names = listFlowFiles(flowsDir);
  const expected = `${id}${FLOW_SUFFIX}`;
  for (const name of [expected, ...names.filter((n) => n !== expected)]) {
    if (!names.includes(name)) continue;
    const text = readFileSync(join(flowsDir, name), 'utf8');
    if (new RegExp(`^flow:\\s*['"]?${id.replace(/[^\w-]/g, '\\$&')}['"]?\\s*(#.*)?$`, 'm').test(text))
      return name;
  }
  return undefined;
}

/** Why a save is refused: the file changed on disk since the editor read it. */
export class StaleVersionError extends Error {
  constructor(
    readonly path: string,
    readonly current: string,
  ) {
    super(
      `${path} changed on disk since you opened it (someone or another editor saved it): your text is kept here; copy what you need, reload the file, and apply your change again`,
    );
  }
}

/** Writes `text` over the file if it is still at `version` (a new file: version ''); returns the new version. */
export function saveEditorFile(flowsDir: string, path: string, text: string, version: string): string {
  const file = resolveFlowFile(flowsDir, path);
  const current = existsSync(file) ? versionOf(readFileSync(file, 'utf8')) : '';
  if (current !== version) throw new StaleVersionError(path, current);
  // Written beside and renamed: the watcher never reads half a file.
  const temporary = `${file}.${process.pid}.saving`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
  return versionOf(text);
}
