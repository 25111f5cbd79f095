/** The language service (src/lsp/language-service.ts) over the project's index: each question's module. */
import type { LanguageService } from '../language-types.ts';
import { flowCompletion } from './completion.ts';
import { hoverOf } from './hover.ts';
import { foundAt } from './lookup.ts';
import { definitionsOf, referencesOf } from './navigation.ts';
import { indexCache } from './project-index.ts';
import { prepare, renameAt } from './rename.ts';
import { symbolsOf } from './symbols.ts';
import { offsetAt } from './text.ts';
import { transcriptCompletion } from './transcript-completion.ts';

export function languageService(): LanguageService {
  const cache = indexCache();
  const indexOf = cache.full;
  return {
    completion(project, file, at) {
      const p = cache.forCompletion(project, file);
      const f = p.fileOf(file);
      if (f?.type === 'flow') return flowCompletion(p, f.index, f.index.lines, offsetAt(f.index.lines, at));
      if (f?.type === 'transcript') return transcriptCompletion(p, f.index, at);
      return [];
    },
    hover(project, file, at) {
      const p = indexOf(project);
      const found = foundAt(p, file, at);
      return found ? hoverOf(p, found) : null;
    },
    definition(project, file, at) {
      const p = indexOf(project);
      const found = foundAt(p, file, at);
      return found ? definitionsOf(p, found) : [];
    },
    references(project, file, at, includeDeclaration) {
      const p = indexOf(project);
      const found = foundAt(p, file, at);
      return found ? referencesOf(p, found, includeDeclaration) : [];
    },
    prepareRename(project, file, at) {
      return prepare(foundAt(indexOf(project), file, at));
    },
    rename(project, file, at, newName) {
      const p = indexOf(project);
      return renameAt(p, foundAt(p, file, at), newName);
    },
    documentSymbols(project, file) {
      const f = indexOf(project).fileOf(file);
      return f ? symbolsOf(f) : [];
    },
  };
}
