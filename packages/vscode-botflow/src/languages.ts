/** The files botflow lsp handles, as VS Code's languages (package.json contributes them). */
export const LANGUAGES = ['botflow-flow', 'botflow-test', 'fluent'] as const;
