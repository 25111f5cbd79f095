/**
 * Dates relative to the engine's clock in flow files: `today`, `tomorrow`, `yesterday`, `+30d`, `-1d`,
 * `+2w`, `+1m` (months), `+1y`. They resolve to an ISO date (YYYY-MM-DD, UTC) on the event's `now`, so
 * transcripts with a virtual clock get the same answer every run.
 */

const RELATIVE = /^(today|tomorrow|yesterday|(?:today\s*)?([+-])\s*(\d{1,4})\s*([dwmy]))$/i;

/** True when `text` is a relative date expression. */
export function isRelativeDate(text: string): boolean {
  return RELATIVE.test(text.trim());
}

/** The ISO date `text` names relative to `now` (ms), or undefined when it is no relative date. */
export function relativeDate(text: string, now: number): string | undefined {
  const m = RELATIVE.exec(text.trim());
  if (!m) return undefined;
  const d = new Date(now);
  const day = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const word = m[1]!.toLowerCase();
  if (word === 'tomorrow') day.setUTCDate(day.getUTCDate() + 1);
  else if (word === 'yesterday') day.setUTCDate(day.getUTCDate() - 1);
  else if (m[2]) {
    const n = Number(m[3]) * (m[2] === '-' ? -1 : 1);
    const unit = m[4]!.toLowerCase();
    if (unit === 'd') day.setUTCDate(day.getUTCDate() + n);
    else if (unit === 'w') day.setUTCDate(day.getUTCDate() + 7 * n);
    else if (unit === 'm') day.setUTCMonth(day.getUTCMonth() + n);
    else day.setUTCFullYear(day.getUTCFullYear() + n);
  }
  return day.toISOString().slice(0, 10);
}
