// The "Edit" view beside the chats: the conversation's flow file in the editor (CodeMirror 6, bundled at
// build time into editor.js, imported on first use so the page itself stays small).
import { h } from './dom.js';

/** The editor section of the page; `open(flow)` shows a flow's file, `fileSaved()` follows the step form. */
export class FlowEditorView {
  constructor(el, layout) {
    this.el = el;
    this.layout = layout;
    this.editor = undefined;
  }

  async open(flow) {
    if (this.editor?.flow === flow) return;
    this.close();
    this.el.hidden = false;
    this.layout.classList.add('editing');
    this.el.replaceChildren(h('p', { class: 'muted' }, `Opening ${flow}…`));
    try {
      const { openEditor } = await import('/_web/editor.js');
      this.editor = await openEditor(this.el, flow, () => this.close());
    } catch (error) {
      this.el.replaceChildren(
        h(
          'p',
          { class: 'error', role: 'alert' },
          `The editor could not open: ${error.message}. In a checkout of botflow, npm run build makes its bundle.`,
        ),
        h('button', { type: 'button', class: 'btn', onclick: () => this.close() }, 'Close'),
      );
    }
  }

  close() {
    this.editor?.destroy();
    this.editor = undefined;
    this.el.hidden = true;
    this.el.replaceChildren();
    this.layout.classList.remove('editing');
  }

  /** The file was saved elsewhere (the step form): show it, unless the editor holds unsaved changes. */
  fileSaved(flow) {
    if (this.editor?.flow === flow) void this.editor.reloadIfClean();
  }
}
