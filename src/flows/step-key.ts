/** Step keys of compiled flows (compile.ts). */

/** The step key (`step`, `call>inner`, `__call_help>step`) of a state value. */
export function stepKeyOf(value: unknown): string {
  const parts: string[] = [];
  let v = value;
  while (v && typeof v === 'object') {
    const [k, inner] = Object.entries(v as Record<string, unknown>)[0] ?? [];
    if (k === undefined) break;
    parts.push(k);
    v = inner;
  }
  if (typeof v === 'string') parts.push(v);
  return parts.join('>');
}
