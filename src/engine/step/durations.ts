/** Parses a flow-file duration (`90s`, `15m`, `1h30m`, `2d`, `500ms`) into milliseconds. */
export function durationMs(text: string): number {
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  let total = 0;
  for (const m of text.matchAll(/(\d+)(ms|s|m|h|d)/g)) total += Number(m[1]) * unit[m[2]!]!;
  return total;
}
