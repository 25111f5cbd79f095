/**
 * `GET /_inspector/campaigns[?id=<id or name>]`: the playground's campaigns page. Every campaign with its
 * recipients by status, why people were skipped, and its funnel (reached, started, finished); with `id`,
 * one campaign and its first recipients with their status. `?format=json` answers the same as
 * `botflow stats --campaigns --json` (or `botflow campaign status <id> --json`). docs/campaigns.md.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { CampaignReport, CampaignsApi } from '../engine/campaigns/api.ts';
import { isBotflowError } from '../errors/index.ts';
import type { RecipientRow } from '../store/campaigns/types.ts';
import { escapeHtml } from './storyboard.ts';

/** What the page reads of the engine's campaigns. */
export type CampaignReader = Pick<CampaignsApi, 'list' | 'status' | 'recipients'>;

export function campaignRoutes(read: () => CampaignReader | undefined): FastifyPluginAsync {
  return async (app) => {
    app.get('/_inspector/campaigns', async (req, reply) => {
      const q = req.query as { id?: string; format?: string };
      const campaigns = read();
      if (!campaigns)
        return reply
          .code(503)
          .send({ code: 'no.engine', message: 'No engine is attached to this sandbox: run botflow run' });
      try {
        const shown = q.id ? [await campaigns.status(q.id)] : await campaigns.list();
        const recipients = q.id ? await campaigns.recipients(q.id, { limit: 200 }) : undefined;
        if (q.format === 'json') return q.id ? { ...shown[0], recipients } : shown;
        return reply.type('text/html; charset=utf-8').send(campaignsHtml(shown, recipients));
      } catch (error) {
        if (isBotflowError(error, 'BOTFLOW_CAMPAIGN_NOT_FOUND'))
          return reply.code(404).send({ code: 'campaign.not_found', message: error.message });
        throw error;
      }
    });
  };
}

const when = (ms: number | null) => (ms === null ? '' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z'));
const pct = (n: number, of: number) => (of === 0 ? 0 : Math.round((100 * n) / of));

function row(c: CampaignReport): string {
  const s = c.byStatus;
  const reasons = Object.entries(c.reasons)
    .map(([r, n]) => `${escapeHtml(r)} ${n}`)
    .join(', ');
  const href = `/_inspector/campaigns?id=${encodeURIComponent(c.id)}`;
  return (
    `<tr data-campaign="${escapeHtml(c.id)}"><th scope="row"><a href="${escapeHtml(href)}">${escapeHtml(c.name)}</a>` +
    ` <span class="quiet">${escapeHtml(c.flow)}</span></th>` +
    `<td><span class="status ${escapeHtml(c.status)}">${escapeHtml(c.status)}</span></td>` +
    `<td class="num">${c.recipients}</td><td class="num">${s.queued}</td><td class="num">${s.sent}</td>` +
    `<td class="num">${s.failed}</td><td class="num">${s.skipped}${reasons ? ` <span class="quiet">(${reasons})</span>` : ''}</td>` +
    `<td class="num">${c.funnel.reached}</td>` +
    `<td class="num">${c.funnel.started} <span class="quiet">${pct(c.funnel.started, c.funnel.reached)}%</span></td>` +
    `<td class="num">${c.funnel.finished} <span class="quiet">${pct(c.funnel.finished, c.funnel.reached)}%</span></td></tr>`
  );
}

function recipientsTable(rows: readonly RecipientRow[]): string {
  const lines = rows
    .map(
      (r) =>
        `<tr data-recipient="${escapeHtml(r.conversationKey)}"><th scope="row">${escapeHtml(r.conversationKey)}</th>` +
        `<td>${escapeHtml(r.status)}</td><td>${escapeHtml(r.reason ?? '')}</td>` +
        `<td>${escapeHtml(when(r.releasedAt))}</td><td>${escapeHtml(when(r.settledAt))}</td></tr>`,
    )
    .join('');
  return (
    '<h2>Recipients <span class="quiet">(the first 200)</span></h2><table class="recipients"><thead><tr>' +
    '<th>conversation</th><th>status</th><th>reason</th><th>released</th><th>settled</th></tr></thead>' +
    `<tbody>${lines}</tbody></table>`
  );
}

/** The page. */
export function campaignsHtml(
  campaigns: readonly CampaignReport[],
  recipients?: readonly RecipientRow[],
): string {
  const body =
    campaigns.length === 0
      ? '<p class="empty">No campaigns yet. Start one with <code>botflow campaign start</code> or <code>engine.campaigns.start()</code> (docs/campaigns.md).</p>'
      : '<table class="campaigns"><thead><tr><th>campaign</th><th>status</th><th class="num">recipients</th>' +
        '<th class="num">queued</th><th class="num">sent</th><th class="num">failed</th><th class="num">skipped</th>' +
        '<th class="num">reached</th><th class="num">started</th><th class="num">finished</th></tr></thead>' +
        `<tbody>${campaigns.map(row).join('')}</tbody></table>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Campaigns · botflow</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f5fa;color:#1c1d27}
header{background:#fff;border-bottom:1px solid #e3e5ee;padding:14px 24px;display:flex;align-items:center;gap:16px}
header h1{font-size:18px;margin:0;flex:1}
header a{color:#4a45c9}
main{padding:8px 24px 48px;max-width:1200px}
h2{font-size:20px;margin:28px 0 8px}
.quiet{color:#6b6f85;font-weight:normal;font-size:13px}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #e3e5ee;border-radius:12px;overflow:hidden;margin-top:16px}
th,td{padding:8px 12px;border-bottom:1px solid #eef0f6;text-align:left;white-space:nowrap}
thead th{font:600 12px system-ui;color:#6b6f85;text-transform:uppercase;background:#fafbfe}
tbody th a{font:600 14px ui-monospace,monospace;color:#4a45c9;text-decoration:none}
.num{text-align:right;font-variant-numeric:tabular-nums}
.status{font:600 12px system-ui;padding:2px 8px;border-radius:10px;background:#eef0f6}
.status.running{background:#e2f5e9;color:#17693a}.status.paused{background:#fff3d6;color:#8a5a00}
.status.cancelled{background:#fde4e4;color:#9b1c1c}
.empty{color:#6b6f85}
</style></head>
<body><header><h1>Campaigns</h1><a href="/_inspector/campaigns">all campaigns</a><a href="/_inspector/funnel">funnel</a></header>
<main>${body}${recipients ? recipientsTable(recipients) : ''}</main></body></html>`;
}
