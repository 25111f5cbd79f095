// The playground's flow editor: the conversation's flow file in CodeMirror 6 (YAML), with the checker's
// diagnostics and the language service's completion as you type, saved through `/_editor/file`. Bundled
// at build time (scripts/build-editor.mjs) into assets/editor.js, which the page imports when "Edit" is
// pressed; the rest of the page stays plain ES modules.
import { autocompletion } from '@codemirror/autocomplete';
import { yaml } from '@codemirror/lang-yaml';
import { linter, lintGutter } from '@codemirror/lint';
import { keymap } from '@codemirror/view';
import { basicSetup, EditorView } from 'codemirror';
import { flowCompletion, flowLinter } from './language.ts';
import { EditorServerError, editorServer, type FlowFileText } from './server.ts';

/** An open editor. */
export interface FlowEditor {
  /** The flow id it edits. */
  readonly flow: string;
  /** Reads the file again when it changed on disk and nothing here is unsaved (the step form saved it). */
  reloadIfClean(): Promise<void>;
  /** The editor's text (tests and the page read it). */
  text(): string;
  destroy(): void;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string>, text = '') {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.textContent = text;
  return node;
}

/** The editor's frame: a head with the file's name, its state and buttons, a message line, the text. */
function frame(host: HTMLElement) {
  const parts = {
    file: el('code', { class: 'editor-file' }),
    state: el('span', { class: 'editor-state muted small', role: 'status', 'aria-label': 'Editor state' }),
    save: el('button', { type: 'button', class: 'btn btn-primary', title: 'Save (Ctrl+S)' }, 'Save'),
    reload: el('button', { type: 'button', class: 'btn', title: 'Read the file from disk again' }, 'Reload'),
    close: el('button', { type: 'button', class: 'btn', 'aria-label': 'Close the editor' }, '×'),
    message: el('p', { class: 'editor-message', role: 'alert' }),
    text: el('div', { class: 'editor-text', 'aria-label': 'Flow file' }),
  };
  parts.message.hidden = true;
  const head = el('header', { class: 'editor-head' });
  head.append(el('h2', {}, 'Edit'), parts.file, parts.state, parts.save, parts.reload, parts.close);
  host.replaceChildren(head, parts.message, parts.text);
  return parts;
}

/** Opens `flow`'s file in `host`; `onClose` when the person closes it. */
export async function openEditor(host: HTMLElement, flow: string, onClose: () => void): Promise<FlowEditor> {
  const parts = frame(host);
  let file: FlowFileText = await editorServer.fileOfFlow(flow);
  let saved = file.text;
  let errors = 0;
  const say = (text: string, kind: 'error' | 'ok' = 'error') => {
    parts.message.hidden = !text;
    parts.message.textContent = text;
    parts.message.className = `editor-message editor-message-${kind}`;
  };
  const showState = () => {
    const dirty = view.state.doc.toString() !== saved;
    parts.state.textContent = `${dirty ? 'unsaved changes' : 'saved'}${errors ? ` · ${errors} error${errors > 1 ? 's' : ''}` : ''}`;
    host.dataset.dirty = String(dirty);
  };
  const save = async () => {
    const text = view.state.doc.toString();
    try {
      file = { ...file, ...(await editorServer.save(file.path, text, file.version)), text };
      saved = text;
      say('Saved: the chat runs the new version of the flow as soon as it reloads.', 'ok');
    } catch (error) {
      // Refused (changed on disk, not on loopback): the text stays in the editor, as typed.
      say(error instanceof EditorServerError ? error.message : `could not save: ${(error as Error).message}`);
    }
    showState();
  };
  const saveKey = () => {
    void save();
    return true;
  };
  const view = new EditorView({
    parent: parts.text,
    doc: file.text,
    extensions: [
      basicSetup,
      EditorView.lineWrapping, // designers' long texts stay in sight
      yaml(),
      lintGutter(),
      linter(
        flowLinter(
          () => file.path,
          (n) => {
            errors = n;
            showState();
          },
        ),
        { delay: 300 },
      ),
      autocompletion({ override: [flowCompletion(() => file.path)] }),
      keymap.of([{ key: 'Mod-s', preventDefault: true, run: saveKey }]),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) showState();
      }),
    ],
  });
  const load = async () => {
    file = await editorServer.fileOfFlow(flow);
    saved = file.text;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: file.text } });
    say('');
    showState();
  };
  parts.file.textContent = file.path;
  parts.save.disabled = !file.saving;
  if (!file.saving)
    say('Saving is off: the playground listens beyond this machine. Listen on 127.0.0.1 to edit here.');
  parts.save.onclick = () => void save();
  parts.reload.onclick = () => void load();
  parts.close.onclick = () => {
    view.destroy();
    onClose();
  };
  showState();
  return {
    flow,
    text: () => view.state.doc.toString(),
    async reloadIfClean() {
      if (view.state.doc.toString() === saved) await load();
    },
    destroy: () => view.destroy(),
  };
}
