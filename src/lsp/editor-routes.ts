/**
 * The playground's editor, server side: `/_editor/*` routes on the sandbox beside the inspector. Read a
 * flow file (its text and version, a content hash), the checker's diagnostics and the language service's
 * completion for an unsaved text, save it, and read or submit the graph's step form. Saving writes only
 * flow files inside the flows folder, only while the playground listens on loopback, and never over a
 * file that changed on disk since the editor read it (409, the person's text stays in the editor). The
 * flows watcher (flows/watch.ts) reloads the saved file into the chat as for any other save.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import type { PlaygroundExtension } from '../runtime/app-parts.ts';
import {
  EditorPathError,
  fileOfFlow,
  listFlowFiles,
  readEditorFile,
  resolveFlowFile,
  StaleVersionError,
  saveEditorFile,
} from './editor-files.ts';
import { EditorProject } from './editor-project.ts';
import { editStep, readStepForm, StepEditError, type StepForm } from './yaml-edit.ts';

/** Where the editor's routes are. */
export const EDITOR_PATH = '/_editor';

type Body = Record<string, unknown>;

/** True when the app listens on a loopback interface only (127.x, ::1). */
export function listensOnLoopback(app: FastifyInstance): boolean {
  const address = app.server.address() as AddressInfo | string | null;
  if (!address || typeof address === 'string') return false;
  return (
    address.address === '::1' || address.address.startsWith('127.') || address.address === '::ffff:127.0.0.1'
  );
}

/** The answer for an error the person can act on; rethrows anything else. */
function refuse(reply: FastifyReply, error: unknown) {
  if (error instanceof EditorPathError)
    return reply.code(403).send({ code: 'editor.forbidden', message: error.message });
  if (error instanceof StaleVersionError)
    return reply.code(409).send({ code: 'editor.stale', message: error.message, version: error.current });
  if (error instanceof StepEditError)
    return reply.code(422).send({ code: 'editor.edit', message: error.message });
  throw error;
}

/** True for a Host header that names this machine: localhost, 127.x or [::1], with any port. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

const HOST_REFUSED =
  'saving is refused: the page was not opened at localhost or 127.0.0.1 (the address botflow run prints); open that address to edit here';

const SAVING_REFUSED =
  'saving is off: the playground listens beyond this machine (sandbox.host), and anyone who can reach it could write your flow files; listen on 127.0.0.1 to edit here';

/** The editor's routes over the project `project()` gives (undefined until the flows are loaded: 409). */
export function editorRoutes(project: () => EditorProject | undefined): FastifyPluginAsync {
  return async (app) => {
    const withProject = (reply: FastifyReply) => {
      const p = project();
      if (!p)
        reply.code(409).send({ code: 'no.engine', message: 'No flows are loaded yet: run botflow run' });
      return p;
    };
    const mayWrite = (reply: FastifyReply) => {
      if (!listensOnLoopback(app)) {
        reply.code(403).send({ code: 'editor.exposed', message: SAVING_REFUSED });
        return false;
      }
      // A page of another site whose name was made to point here (DNS rebinding) names its own host.
      if (!isLoopbackHost(reply.request.headers.host)) {
        reply.code(403).send({ code: 'editor.host', message: HOST_REFUSED });
        return false;
      }
      return true;
    };

    app.get(`${EDITOR_PATH}/file`, async (req, reply) => {
      const p = withProject(reply);
      if (!p) return reply;
      const query = req.query as { path?: string; flow?: string };
      try {
        const path = query.path ?? (query.flow ? fileOfFlow(p.flowsDir, query.flow) : undefined);
        const file = path ? readEditorFile(p.flowsDir, path) : undefined;
        if (!file)
          return reply
            .code(404)
            .send({ code: 'not.found', message: `no such flow file: ${query.path ?? query.flow}` });
        return { ...file, saving: listensOnLoopback(app), files: listFlowFiles(p.flowsDir) };
      } catch (error) {
        return refuse(reply, error);
      }
    });

    app.post(`${EDITOR_PATH}/diagnostics`, async (req, reply) => {
      const p = withProject(reply);
      if (!p) return reply;
      const { path, text } = (req.body ?? {}) as Body;
      if (typeof text !== 'string')
        return reply.code(400).send({ code: 'proto.payload', message: 'takes { path, text }' });
      try {
        resolveFlowFile(p.flowsDir, path);
        return { diagnostics: await p.diagnostics(path as string, text) };
      } catch (error) {
        return refuse(reply, error);
      }
    });

    app.post(`${EDITOR_PATH}/completion`, async (req, reply) => {
      const p = withProject(reply);
      if (!p) return reply;
      const { path, text, line, character } = (req.body ?? {}) as Body;
      if (typeof text !== 'string' || typeof line !== 'number' || typeof character !== 'number')
        return reply
          .code(400)
          .send({ code: 'proto.payload', message: 'takes { path, text, line, character } (0-based)' });
      try {
        resolveFlowFile(p.flowsDir, path);
        return { items: await p.completion(path as string, text, { line, character }) };
      } catch (error) {
        return refuse(reply, error);
      }
    });

    app.put(`${EDITOR_PATH}/file`, async (req, reply) => {
      const p = withProject(reply);
      if (!p || !mayWrite(reply)) return reply;
      const { path, text, version } = (req.body ?? {}) as Body;
      if (typeof text !== 'string' || typeof version !== 'string')
        return reply.code(400).send({ code: 'proto.payload', message: 'takes { path, text, version }' });
      try {
        return { path, version: saveEditorFile(p.flowsDir, path as string, text, version) };
      } catch (error) {
        return refuse(reply, error);
      }
    });

    stepRoutes(app, withProject, mayWrite);
  };
}

/** The graph's step form: its fields as the file has them, and a submit that edits and saves the file. */
function stepRoutes(
  app: FastifyInstance,
  withProject: (reply: FastifyReply) => EditorProject | undefined,
  mayWrite: (reply: FastifyReply) => boolean,
): void {
  app.get(`${EDITOR_PATH}/step`, async (req, reply) => {
    const p = withProject(reply);
    if (!p) return reply;
    const { flow, step } = req.query as { flow?: string; step?: string };
    const path = flow ? fileOfFlow(p.flowsDir, flow) : undefined;
    const file = path ? readEditorFile(p.flowsDir, path) : undefined;
    const form = file && step ? readStepForm(file.text, step) : undefined;
    if (!file || !form)
      return reply.code(404).send({ code: 'not.found', message: `no step ${flow}/${step}` });
    return { path, version: file.version, form, saving: listensOnLoopback(app) };
  });

  app.post(`${EDITOR_PATH}/step`, async (req, reply) => {
    const p = withProject(reply);
    if (!p || !mayWrite(reply)) return reply;
    const { path, version, step, form } = (req.body ?? {}) as Body;
    if (typeof step !== 'string' || typeof version !== 'string' || typeof form !== 'object' || !form)
      return reply.code(400).send({ code: 'proto.payload', message: 'takes { path, version, step, form }' });
    try {
      const file = readEditorFile(p.flowsDir, path as string);
      if (!file) return reply.code(404).send({ code: 'not.found', message: `no such flow file: ${path}` });
      if (file.version !== version) throw new StaleVersionError(file.path, file.version);
      const text = editStep(file.text, step, form as StepForm);
      return { path, text, version: saveEditorFile(p.flowsDir, file.path, text, version) };
    } catch (error) {
      return refuse(reply, error);
    }
  });
}

/** The editor as a playground extension: its project is the flows folder `botflow run` loaded. */
export function editorExtension(): PlaygroundExtension {
  let project: EditorProject | undefined;
  return {
    plugin: editorRoutes(() => project),
    attach(_engine, _loaded, flowsDir) {
      project = new EditorProject(flowsDir);
    },
    flowsChanged() {
      project?.forget();
    },
  };
}
