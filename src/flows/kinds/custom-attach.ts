/**
 * How a parsed step finds a project's kind (defineStepKind) without the project's registry being threaded
 * through every walk: the loader attaches the kind to the step under a symbol that is not enumerable, so
 * JSON, hashes (the flow's version), snapshots and `canonicalJson` never see it. kinds/registry.ts's
 * `kindOf` asks here first. This file imports nothing, so anything may import it.
 */

const ATTACHED: unique symbol = Symbol('botflow.stepKind.attached');

/** Attaches `kind` to a parsed step (invisible to JSON and hashes). */
export function attachKind(step: object, kind: unknown): void {
  Object.defineProperty(step, ATTACHED, { value: kind, enumerable: false, configurable: true });
}

/** The project kind attached to `step` by the loader, if it is one. */
export function attachedKind<K>(step: object): K | undefined {
  return (step as Record<symbol, K | undefined>)[ATTACHED];
}

/** Attaches each step of a parsed flow whose `type:` is one of `kinds` (a project's) to that kind. */
export function attachProjectKinds(
  steps: Readonly<Record<string, object>>,
  kinds: readonly { readonly type: string }[],
): void {
  if (!kinds.length) return;
  const byType = new Map(kinds.map((k) => [k.type, k]));
  for (const step of Object.values(steps)) {
    const kind = byType.get((step as { type?: string }).type ?? '');
    if (kind) attachKind(step, kind);
  }
}

const KINDS_OF: unique symbol = Symbol('botflow.stepKind.definitionKinds');

/**
 * Attaches the project's kinds a flow was compiled with to its compiled definition (invisible, as above),
 * so that the views reading the definition's flow files (step-views.ts) parse them with the same kinds.
 */
export function attachDefinitionKinds(definition: object, kinds: readonly unknown[]): void {
  if (kinds.length) Object.defineProperty(definition, KINDS_OF, { value: kinds, enumerable: false });
}

/** The project's kinds a definition was compiled with (none for most projects). */
export function definitionKinds<K>(definition: object): readonly K[] {
  return (definition as Record<symbol, readonly K[] | undefined>)[KINDS_OF] ?? [];
}
