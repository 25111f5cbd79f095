/**
 * `GET /_inspector/plan[?format=json]`: `botflow flows plan` in the playground. For every flow version that
 * running conversations are on, against the flows loaded now (after the designer saved a change): on the
 * latest version, moved by the new version's `migrate:` block at their next event (to which step), staying
 * on their version (rebuilt from the source stored with it), or stranded, with what to do.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { PlanRow } from '../engine/flows-plan.ts';
import { escapeHtml } from './storyboard.ts';

/** Computes the plan on the engine's database (SQLite or PostgreSQL); undefined when no engine is attached. */
export type PlanReader = () => PlanRow[] | undefined | Promise<PlanRow[] | undefined>;

export function planRoutes(read: PlanReader): FastifyPluginAsync {
  return async (app) => {
    app.get('/_inspector/plan', async (req, reply) => {
      const rows = await read();
      if (rows === undefined) {
        return reply.code(503).send({
          code: 'no.engine',
          message: 'No engine is attached to this sandbox: run botflow run (or botflow flows plan)',
        });
      }
      if ((req.query as { format?: string }).format === 'json') return rows;
      return reply.type('text/html; charset=utf-8').send(planHtml(rows));
    });
  };
}

const OUTCOME: Record<PlanRow['outcome'], string> = {
  current: 'on the latest version',
  migrated: 'move at their next event',
  pinned: 'stay on their version',
  stranded: 'stranded',
  mixed: 'mixed',
};

function rowHtml(r: PlanRow): string {
  const moved = Object.entries(r.movesTo).sort((a, b) => b[1] - a[1]);
  const details: string[] = [];
  if (r.outcome === 'current') details.push('nothing changes');
  if (moved.length > 0)
    details.push(
      `migrate: moves ${moved.map(([step, n]) => `${n} to <code>${escapeHtml(step)}</code>`).join(', ')}`,
    );
  if (r.pinned > 0) details.push(`${r.pinned} stay on this version (${escapeHtml(r.why ?? '')})`);
  if (r.stranded > 0)
    details.push(
      `<strong>${r.stranded} stranded</strong>: ${escapeHtml(r.why ?? '')}. Add a <code>migrate:</code> block for this version to the flow file, or end them first`,
    );
  return (
    `<tr class="${r.outcome}" data-flow="${escapeHtml(r.flowId)}" data-version="${escapeHtml(r.version)}">` +
    `<th scope="row">${escapeHtml(r.flowId)}</th><td><code>${escapeHtml(r.version.slice(0, 10))}</code></td>` +
    `<td class="num">${r.sessions}</td><td><span class="tag ${r.outcome}">${OUTCOME[r.outcome]}</span></td>` +
    `<td>${details.join('; ')}</td></tr>`
  );
}

/** The plan page. */
export function planHtml(rows: readonly PlanRow[]): string {
  const stranded = rows.reduce((n, r) => n + r.stranded, 0);
  const older = rows.filter((r) => r.outcome !== 'current').reduce((n, r) => n + r.sessions, 0);
  const summary =
    rows.length === 0
      ? 'No conversation is running.'
      : stranded > 0
        ? `${stranded} conversation${stranded === 1 ? ' is' : 's are'} stranded: their next event would fail.`
        : older > 0
          ? `${older} conversation${older === 1 ? ' runs' : 's run'} on an older version of a flow; none is stranded.`
          : 'Every running conversation is on the latest version of its flow.';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>running conversations by flow version</title>
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f5fa;color:#1c1d27}
header{background:#fff;border-bottom:1px solid #e3e5ee;padding:14px 24px}
header h1{font-size:18px;margin:0}
main{padding:16px 24px 48px;max-width:1100px}
.summary{font-size:16px;margin:4px 0 16px}
.quiet{color:#6b6f85;font-size:13px}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #e3e5ee;border-radius:12px;overflow:hidden}
th,td{padding:9px 12px;border-bottom:1px solid #eef0f6;text-align:left;vertical-align:top}
thead th{font:600 12px system-ui;color:#6b6f85;text-transform:uppercase;background:#fafbfe}
.num{text-align:right;font-variant-numeric:tabular-nums}
code{font:13px ui-monospace,monospace}
.tag{font:600 12px system-ui;border-radius:8px;padding:2px 8px;white-space:nowrap;background:#eceaff;color:#4a45c9}
.tag.current{background:#e7f7ee;color:#157347}.tag.pinned{background:#fff4d6;color:#8a5a00}
.tag.stranded,.tag.mixed{background:#fde8e8;color:#b42318}
</style></head>
<body><header><h1>Running conversations by flow version</h1></header><main>
<p class="summary">${summary}</p>
<p class="quiet">Against the flows loaded now. What <code>botflow flows plan</code> says before a deploy, for this
database. A flow file saved with changes is a new version: conversations already in it stay on theirs unless its
<code>migrate:</code> block maps them.</p>
${
  rows.length === 0
    ? ''
    : `<table><thead><tr><th scope="col">flow</th><th scope="col">version</th><th scope="col" class="num">running</th><th scope="col">what happens</th><th scope="col">details</th></tr></thead><tbody>${rows.map(rowHtml).join('')}</tbody></table>`
}
</main></body></html>
`;
}
