/**
 * The funnel as people read it in a terminal (`botflow stats`) and on the funnel page: step names,
 * durations, the table with the samples of unrecognised texts under their step.
 */
import type { FlowFunnel } from './funnel.ts';

/** A sample on one line: line breaks and tabs as spaces, control characters left out. */
export const oneLine = (text: string) =>
  text.replace(/[\r\n\t]+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');

/** A step as people read it: `__call_help>explain` (inside the called flow help) → `↪ help › explain`. */
export function stepLabel(step: string): string {
  return step
    .split('>')
    .map((part) => (part.startsWith('__call_') ? `↪ ${part.slice(7)}` : part))
    .join(' › ');
}

/** `1.2 s`, `14 min`, `3.5 h`, `2 d`. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return '–';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${(ms / 86_400_000).toFixed(1)} d`;
}

const percent = (n: number, of: number) => (of === 0 ? '' : `${Math.round((100 * n) / of)}%`);

/** The funnel as text, for the terminal. */
export function describeFunnel(funnels: readonly FlowFunnel[], options: { since?: string } = {}): string {
  if (funnels.length === 0) return `no conversations recorded${options.since ? ` ${options.since}` : ''} yet`;
  const out: string[] = [];
  for (const f of funnels) {
    out.push(
      `${f.flowId}: ${f.sessions} conversation${f.sessions === 1 ? '' : 's'}, ${f.ended} reached an end` +
        (f.sessions ? ` (${percent(f.ended, f.sessions)})` : '') +
        (options.since ? `, ${options.since}` : ''),
    );
    const failed = f.steps.some((s) => s.failures > 0);
    const heard = f.steps.some((s) => s.unrecognised > 0);
    const header = [
      'step',
      'reached',
      '',
      'waiting',
      'stopped',
      'ended',
      'retries',
      ...(failed ? ['failed'] : []),
      ...(heard ? ['unrecognised'] : []),
      'median time',
    ];
    const table = f.steps.map((s) => [
      stepLabel(s.step),
      String(s.reached),
      percent(s.reached, f.sessions),
      String(s.waiting),
      String(s.stopped),
      String(s.ended),
      s.retries
        ? `${s.retries} (${s.retriedSessions} ${s.retriedSessions === 1 ? 'person' : 'people'})`
        : '0',
      ...(failed ? [String(s.failures)] : []),
      ...(heard ? [String(s.unrecognised)] : []),
      formatDuration(s.medianMs),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
    const row = (r: string[]) =>
      `  ${r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')}`;
    out.push(row(header));
    f.steps.forEach((s, i) => {
      out.push(row(table[i]!));
      // What people typed there that nothing took, latest first: one line each, quoted.
      for (const sample of s.samples) out.push(`      “${oneLine(sample)}”`);
    });
    out.push('');
  }
  return out.join('\n').trimEnd();
}
