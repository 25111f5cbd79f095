/**
 * `GET /_inspector/funnel[?flow=<id>][&days=<n>]`: the playground's funnel page, one flow or all, from the
 * step log of the database the bot runs on (runtime/funnel.ts tallies it): for each step how many reached
 * it, how many are there now, stopped there or ended there, the answers it refused, the texts nothing took
 * there (with the latest few under the step) and the median time on it. `?format=json` answers the same as `botflow stats --json`.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { FlowDefinition } from '../engine/step/contract.ts';
import { systemClock } from '../store/ports/clock.ts';
import { wallNow } from '../store/ports/wall-time.ts';
import type { StepLogRow } from '../store/step-log.ts';
import { type FlowFunnel, funnelOf, funnelOfPages, type StepFunnel } from './funnel.ts';
import { formatDuration, oneLine, stepLabel } from './funnel-text.ts';
import { escapeHtml } from './storyboard.ts';
import { flowNotFound } from './storyboard-routes.ts';

/**
 * Reads the step log: on SQLite a sync iterable over the engine's own connection (tallied without a pause),
 * on PostgreSQL pages; undefined when no engine is attached yet.
 */
export type StepLogReader = (query: {
  flowId?: string;
  since?: number;
}) => Iterable<StepLogRow> | AsyncIterable<StepLogRow> | undefined;

const PERIODS: [string, number | undefined][] = [
  ['all kept', undefined],
  ['7 days', 7],
  ['24 hours', 1],
];

/** The routes over `flows` and the step log `read` gives; `now` (the bot's clock) ends the `days` window. */
export function funnelRoutes(
  flows: () => readonly FlowDefinition[],
  read: StepLogReader,
  now: () => number = systemClock.now,
): FastifyPluginAsync {
  return async (app) => {
    app.get('/_inspector/funnel', async (req, reply) => {
      const q = req.query as { flow?: string; days?: string; format?: string };
      const days = q.days === undefined || q.days === '' ? undefined : Number(q.days);
      if (days !== undefined && !(days > 0)) {
        return reply
          .code(400)
          .send({ code: 'proto.payload', message: `days must be a number above 0, got "${q.days}"` });
      }
      const since = days === undefined ? 0 : now() - days * 86_400_000;
      const rows = read({ since, ...(q.flow ? { flowId: q.flow } : {}) });
      if (rows === undefined) {
        return reply
          .code(503)
          .send({ code: 'no.engine', message: 'No engine is attached to this sandbox: run botflow run' });
      }
      const shown = q.flow ? flows().filter((f) => f.id === q.flow) : flows();
      const tallied = Symbol.asyncIterator in rows ? await funnelOfPages(rows, shown) : funnelOf(rows, shown);
      const funnels = tallied.filter((f) => !q.flow || f.flowId === q.flow);
      if (q.flow && funnels.length === 0) return reply.code(404).send(flowNotFound(q.flow, flows()));
      if (q.format === 'json') return funnels;
      return reply.type('text/html; charset=utf-8').send(funnelHtml(funnels, { flow: q.flow, days }));
    });
  };
}

const pct = (n: number, of: number) => (of === 0 ? 0 : Math.round((100 * n) / of));

function link(query: { flow?: string | undefined; days?: number | undefined }): string {
  const params = new URLSearchParams();
  if (query.flow) params.set('flow', query.flow);
  if (query.days !== undefined) params.set('days', String(query.days));
  const text = params.toString();
  return `/_inspector/funnel${text ? `?${text}` : ''}`;
}

/** The columns a flow's table shows beyond the fixed ones: only where some step has a count. */
interface Extra {
  failed: boolean;
  heard: boolean;
}

/** Under a step with unrecognised texts: the latest of them, newest first. */
function samplesRow(s: StepFunnel, columns: number): string {
  if (s.samples.length === 0) return '';
  const quoted = s.samples.map((t) => `<q>${escapeHtml(oneLine(t))}</q>`).join(' ');
  return `<tr class="samples" data-samples="${escapeHtml(s.step)}"><td></td><td colspan="${columns - 1}"><span class="quiet">typed here, nothing took it:</span> ${quoted}</td></tr>`;
}

function stepRow(flow: FlowFunnel, s: StepFunnel, worstStop: number, extra: Extra): string {
  const of = Math.max(flow.sessions, 1);
  const movedOn = Math.max(0, s.reached - s.waiting - s.stopped - s.ended);
  const seg = (cls: string, n: number, label: string) =>
    n > 0
      ? `<span class="seg ${cls}" style="width:${((100 * n) / of).toFixed(2)}%" title="${n} ${label}"></span>`
      : '';
  const storyboard = `/_inspector/storyboard?flow=${encodeURIComponent(flow.flowId)}#${encodeURIComponent(flow.flowId)}--${encodeURIComponent(s.step.split('>')[0]!)}`;
  const stopped =
    s.stopped > 0
      ? `<span class="${s.stopped === worstStop ? 'worst' : ''}">${s.stopped}</span>`
      : '<span class="zero">0</span>';
  return (
    `<tr data-step="${escapeHtml(s.step)}"><th scope="row"><a href="${escapeHtml(storyboard)}" target="_blank" rel="noopener">${escapeHtml(stepLabel(s.step))}</a></th>` +
    `<td class="bar-cell"><div class="bar" aria-hidden="true">${seg('moved', movedOn, 'moved on')}${seg('ended', s.ended, 'reached an end here')}${seg('waiting', s.waiting, 'waiting here now')}${seg('stopped', s.stopped, 'stopped here')}</div></td>` +
    `<td class="num">${s.reached} <span class="quiet">${pct(s.reached, flow.sessions)}%</span></td>` +
    `<td class="num">${s.waiting || '<span class="zero">0</span>'}</td>` +
    `<td class="num">${stopped}</td>` +
    `<td class="num">${s.ended || '<span class="zero">0</span>'}</td>` +
    `<td class="num">${s.retries ? `${s.retries} <span class="quiet">(${s.retriedSessions} ${s.retriedSessions === 1 ? 'person' : 'people'})</span>` : '<span class="zero">0</span>'}</td>` +
    (extra.failed
      ? `<td class="num">${s.failures ? `<span class="worst" title="the flow failed at run time here: see the log">${s.failures}</span>` : '<span class="zero">0</span>'}</td>`
      : '') +
    (extra.heard ? `<td class="num">${s.unrecognised || '<span class="zero">0</span>'}</td>` : '') +
    `<td class="num">${escapeHtml(formatDuration(s.medianMs))}</td></tr>` +
    samplesRow(s, 8 + (extra.failed ? 1 : 0) + (extra.heard ? 1 : 0))
  );
}

function flowHtml(flow: FlowFunnel): string {
  const worstStop = Math.max(0, ...flow.steps.map((s) => s.stopped));
  // Run-time failures (an expression over an unset variable…) get a column only where there are some.
  const failed = flow.steps.some((s) => s.failures > 0);
  // Texts nothing took (`input.unrecognised`) likewise, with their samples under the step.
  const heard = flow.steps.some((s) => s.unrecognised > 0);
  const summary =
    flow.sessions === 0
      ? 'no conversations yet'
      : `${flow.sessions} conversation${flow.sessions === 1 ? '' : 's'} · ${flow.ended} reached an end (${pct(flow.ended, flow.sessions)}%)`;
  return (
    `<section class="flow" aria-label="Funnel of ${escapeHtml(flow.flowId)}"><h2>${escapeHtml(flow.flowId)} <span class="quiet">${summary}</span></h2>` +
    '<table><thead><tr><th scope="col">step</th><th scope="col" class="bar-cell">reached</th><th scope="col" class="num">people</th>' +
    '<th scope="col" class="num">waiting now</th><th scope="col" class="num">stopped here</th><th scope="col" class="num">ended here</th>' +
    '<th scope="col" class="num">answers refused</th>' +
    (failed ? '<th scope="col" class="num">flow failed here</th>' : '') +
    (heard ? '<th scope="col" class="num">typed, not understood</th>' : '') +
    '<th scope="col" class="num">median time</th></tr></thead><tbody>' +
    flow.steps.map((s) => stepRow(flow, s, worstStop, { failed, heard })).join('') +
    '</tbody></table></section>'
  );
}

/** The funnel page. */
export function funnelHtml(
  funnels: readonly FlowFunnel[],
  shown: { flow?: string | undefined; days?: number | undefined } = {},
): string {
  const periods = PERIODS.map(([label, days]) =>
    days === shown.days
      ? `<strong aria-current="true">${label}</strong>`
      : `<a href="${escapeHtml(link({ flow: shown.flow, days }))}">${label}</a>`,
  ).join(' · ');
  const empty = funnels.every((f) => f.sessions === 0);
  const body =
    (empty
      ? '<p class="empty">No conversations yet in this period. Chat in the playground: every step a person reaches is counted here.</p>'
      : '') + funnels.map(flowHtml).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(shown.flow ? `${shown.flow}: funnel` : 'funnel')}</title>
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f5fa;color:#1c1d27}
header{background:#fff;border-bottom:1px solid #e3e5ee;padding:14px 24px;display:flex;align-items:center;gap:16px;flex-wrap:wrap}
header h1{font-size:18px;margin:0;flex:1}
header a{color:#4a45c9}
main{padding:8px 24px 48px;max-width:1200px}
h2{font-size:20px;margin:28px 0 8px}
.quiet{color:#6b6f85;font-weight:normal;font-size:13px}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #e3e5ee;border-radius:12px;overflow:hidden}
th,td{padding:8px 12px;border-bottom:1px solid #eef0f6;text-align:left;white-space:nowrap}
thead th{font:600 12px system-ui;color:#6b6f85;text-transform:uppercase;background:#fafbfe}
tbody th a{font:600 14px ui-monospace,monospace;color:#4a45c9;text-decoration:none}
.num{text-align:right;font-variant-numeric:tabular-nums}
.bar-cell{width:34%}
.bar{display:flex;height:14px;background:#f0f1f6;border-radius:7px;overflow:hidden}
.seg{display:block;height:100%}
.seg.moved{background:#8d89f0}.seg.ended{background:#3aa76d}.seg.waiting{background:#f0b429}.seg.stopped{background:#e5484d}
.worst{color:#b42318;font-weight:600}
.zero{color:#b5b8c8}
.legend{display:flex;gap:14px;font-size:13px;color:#6b6f85;margin:14px 0 0}
.legend i{display:inline-block;width:10px;height:10px;border-radius:3px;margin-right:5px;vertical-align:-1px}
.samples td{white-space:normal;padding-top:0;font-size:13px}
.samples q{display:inline-block;background:#f4f5fa;border-radius:6px;padding:1px 7px;margin:2px 4px 2px 0;max-width:100%;overflow-wrap:anywhere}
.empty{background:#fff;border:1px dashed #c9ccdb;border-radius:12px;padding:18px;color:#6b6f85}
</style></head>
<body><header><h1>${escapeHtml(shown.flow ? `${shown.flow}: funnel` : 'Funnel')}</h1><span>${periods}</span>
<span class="quiet">updated ${new Date(wallNow()).toTimeString().slice(0, 8)} · <a href="${escapeHtml(link(shown))}">refresh</a></span></header>
<main><p class="legend"><span><i style="background:#8d89f0"></i>moved on</span><span><i style="background:#3aa76d"></i>reached an end here</span><span><i style="background:#f0b429"></i>waiting here now</span><span><i style="background:#e5484d"></i>stopped here</span></p>${body}</main></body></html>
`;
}
