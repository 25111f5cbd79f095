/**
 * The playground editor's routes (src/lsp/editor-routes.ts), over real HTTP on an ephemeral port, on a
 * temporary flows folder: reading, diagnostics, saving and its refusals.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EditorProject } from '../../src/lsp/editor-project.ts';
import { editorRoutes, isLoopbackHost } from '../../src/lsp/editor-routes.ts';

const FLOW = `# The greeting: this comment stays.
flow: hello
start: ask
steps:
  ask:
    type: input
    say: "What is your name?"
    input: text
    retries: { max: 3, exhausted: { goto: gone } }
    save: name
    next: done
  done:
    type: end
    say: "Hi {{name}}"
  gone:
    type: end
`;

let root: string;
let flows: string;
let app: FastifyInstance;
let base: string;

async function serve(host: string): Promise<void> {
  app = Fastify();
  await app.register(editorRoutes(() => new EditorProject(flows)));
  await app.listen({ host, port: 0 });
  const { port } = app.server.address() as { port: number };
  base = `http://127.0.0.1:${port}`;
}

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'botflow-editor-'));
  flows = join(root, 'flows');
  mkdirSync(flows);
  writeFileSync(join(flows, 'hello.flow.yaml'), FLOW);
  writeFileSync(join(root, 'outside.flow.yaml'), FLOW);
});

afterEach(async () => {
  await app?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the editor routes on loopback', () => {
  beforeEach(() => serve('127.0.0.1'));

  it('reads a flow file by path or by flow id, with a version, and saves a new text at that version', async () => {
    const byFlow = await call('GET', '/_editor/file?flow=hello');
    expect(byFlow.status).toBe(200);
    expect(byFlow.body).toMatchObject({ path: 'hello.flow.yaml', text: FLOW, saving: true });
    const text = FLOW.replace('What is your name?', 'Your name?');
    const saved = await call('PUT', '/_editor/file', {
      path: 'hello.flow.yaml',
      text,
      version: byFlow.body.version,
    });
    expect(saved.status).toBe(200);
    expect(readFileSync(join(flows, 'hello.flow.yaml'), 'utf8')).toBe(text);
    expect(saved.body.version).not.toBe(byFlow.body.version);
  });

  it('refuses a save over a file that changed on disk since it was read (409), and writes nothing', async () => {
    const read = await call('GET', '/_editor/file?path=hello.flow.yaml');
    writeFileSync(join(flows, 'hello.flow.yaml'), `${FLOW}# someone else's line\n`);
    const saved = await call('PUT', '/_editor/file', {
      path: 'hello.flow.yaml',
      text: 'flow: hello\n',
      version: read.body.version,
    });
    expect(saved.status).toBe(409);
    expect(saved.body.message).toMatch(/changed on disk since you opened it/);
    expect(readFileSync(join(flows, 'hello.flow.yaml'), 'utf8')).toBe(`${FLOW}# someone else's line\n`);
  });

  it('refuses to read or write anything but flow files inside the flows folder', async () => {
    symlinkSync(join(root, 'outside.flow.yaml'), join(flows, 'link.flow.yaml'));
    const version = (await call('GET', '/_editor/file?path=hello.flow.yaml')).body.version;
    for (const path of [
      '../outside.flow.yaml',
      join(root, 'outside.flow.yaml'),
      'link.flow.yaml',
      'registry.ts',
    ]) {
      const saved = await call('PUT', '/_editor/file', { path, text: 'flow: x\n', version });
      expect(saved.status, path).toBe(403);
      expect((await call('GET', `/_editor/file?path=${encodeURIComponent(path)}`)).status, path).toBe(403);
    }
    expect(readFileSync(join(root, 'outside.flow.yaml'), 'utf8')).toBe(FLOW);
  });

  it("gives the checker's problems of an unsaved text, with ranges: a goto to no step", async () => {
    const broken = FLOW.replace('next: done', 'next: dnoe');
    const { status, body } = await call('POST', '/_editor/diagnostics', {
      path: 'hello.flow.yaml',
      text: broken,
    });
    expect(status).toBe(200);
    const diagnostics = body.diagnostics as {
      from: { line: number; col: number };
      to: unknown;
      message: string;
    }[];
    const unknown = diagnostics.find((d) => /dnoe/.test(d.message));
    expect(unknown, JSON.stringify(diagnostics)).toBeDefined();
    const line = broken.split('\n').indexOf('    next: dnoe') + 1;
    expect(unknown!.from).toEqual({ line, col: 11 });
    expect(unknown!.to).toEqual({ line, col: 15 });
    const fine = await call('POST', '/_editor/diagnostics', { path: 'hello.flow.yaml', text: FLOW });
    expect(fine.body.diagnostics, JSON.stringify(fine.body)).toEqual([]);
  });

  it('answers completion from the language service, and edits a step through the form keeping comments', async () => {
    const completion = await call('POST', '/_editor/completion', {
      path: 'hello.flow.yaml',
      text: FLOW,
      line: 10,
      character: 10,
    });
    expect(completion.status).toBe(200);
    expect(Array.isArray(completion.body.items)).toBe(true);
    const step = await call('GET', '/_editor/step?flow=hello&step=ask');
    expect(step.body.form).toEqual({ say: 'What is your name?', next: 'done' });
    const edited = await call('POST', '/_editor/step', {
      path: 'hello.flow.yaml',
      version: step.body.version,
      step: 'ask',
      form: { say: 'Who are you?' },
    });
    expect(edited.status).toBe(200);
    expect(readFileSync(join(flows, 'hello.flow.yaml'), 'utf8')).toBe(
      FLOW.replace('What is your name?', 'Who are you?'),
    );
    const stale = await call('POST', '/_editor/step', {
      path: 'hello.flow.yaml',
      version: step.body.version,
      step: 'ask',
      form: { say: 'Again?' },
    });
    expect(stale.status).toBe(409);
  });
});

describe('the editor routes reached under another name', () => {
  beforeEach(() => serve('127.0.0.1'));

  it('refuses a save whose Host is not this machine (a page of another site pointed here)', async () => {
    const read = await call('GET', '/_editor/file?path=hello.flow.yaml');
    const body = JSON.stringify({ path: 'hello.flow.yaml', text: 'flow: x\n', version: read.body.version });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${base}/_editor/file`,
        { method: 'PUT', headers: { host: 'evil.example:80', 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(403);
    expect(readFileSync(join(flows, 'hello.flow.yaml'), 'utf8')).toBe(FLOW);
    expect(isLoopbackHost('localhost:3000')).toBe(true);
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('[::1]:8080')).toBe(true);
    expect(isLoopbackHost('127.0.0.1.evil.example')).toBe(false);
    expect(isLoopbackHost('localhost.evil.example:80')).toBe(false);
  });
});

describe('the editor routes beyond loopback', () => {
  beforeEach(() => serve('0.0.0.0'));

  it('reads but refuses to save, and says why', async () => {
    const read = await call('GET', '/_editor/file?path=hello.flow.yaml');
    expect(read.body.saving).toBe(false);
    const saved = await call('PUT', '/_editor/file', {
      path: 'hello.flow.yaml',
      text: 'x',
      version: read.body.version,
    });
    expect(saved.status).toBe(403);
    expect(saved.body.message).toMatch(/listens beyond this machine/);
    const form = await call('POST', '/_editor/step', {
      path: 'hello.flow.yaml',
      version: read.body.version,
      step: 'ask',
      form: { say: 'x' },
    });
    expect(form.status).toBe(403);
    expect(readFileSync(join(flows, 'hello.flow.yaml'), 'utf8')).toBe(FLOW);
  });
});
