/**
 * `botflow campaign` on a real SQLite file: plan prints the count and a sample and writes nothing; start
 * snapshots the segment, and the bot's engine (another connection to the same file) releases it; status,
 * pause, resume and cancel; a campaign file's mistake is reported at its file:line:col.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { command } from '../../src/cli/campaign-command.ts';
import { command as stats } from '../../src/cli/stats-command.ts';
import { loadFlows } from '../../src/flows/load.ts';
import { OFFER, WELCOME } from '../campaigns/fixtures.ts';
import { botStarted } from '../engine/fixtures.ts';
import { EngineOnDisk } from '../engine/harness.ts';
import { consoleOutput } from '../support/console-output.ts';

const output = consoleOutput();
const campaign = (args: string[]) => output.run(command, args);
const lines = () => output.lines.join('\n').split('\n');
let h: EngineOnDisk | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('botflow campaign', () => {
  it('plans, starts, pauses, resumes, cancels and reports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botflow-campaign-'));
    mkdirSync(join(dir, 'flows'));
    mkdirSync(join(dir, 'campaigns'));
    writeFileSync(join(dir, 'flows', 'welcome.flow.yaml'), WELCOME);
    writeFileSync(join(dir, 'flows', 'offer.flow.yaml'), OFFER);
    writeFileSync(
      join(dir, 'campaigns', 'spring.campaign.yaml'),
      'flow: offer\nwith: { code: S26 }\nsegment:\n  where:\n    tags: { any: [member] }\nrate: 1/s\n',
    );
    writeFileSync(join(dir, 'campaigns', 'bad.campaign.yaml'), 'flow: offer\nrate: fast\n');
    const { flows } = await loadFlows(join(dir, 'flows'));
    h = new EngineOnDisk(() => flows);
    h.time = Date.now() - 3_600_000; // the command reads the wall clock
    for (const user of [1, 2, 3]) h.deliver(botStarted(user, h.time));
    h.engine.processPending();
    h.time = Date.now(); // they left the welcome at its question an hour ago: not mid-dialog any more
    const common = ['--db', h.path, '--flows', join(dir, 'flows'), '--dir', join(dir, 'campaigns')];

    expect(await campaign(['plan', 'spring', ...common])).toBe(0);
    expect(lines()[0]).toBe('spring: 3 person(s) match now; nothing was sent');
    expect(
      lines()
        .slice(1)
        .map((l) => l.trim().split(/\s+/)[0]),
    ).toEqual(['u:1', 'u:2', 'u:3']);
    expect(h.db.prepare('SELECT count(*) AS n FROM campaign_recipients').get()).toEqual({ n: 0 });

    // The file is checked as botflow check does: every problem, at file:line:col, with what to do.
    expect(await campaign(['plan', 'bad', ...common])).toBe(2);
    expect(output.lines.join('\n')).toMatch(
      /bad\.campaign\.yaml:2:7: error: rate: "fast" is not a rate such as 10\/s or 300\/min\n\s+hint: write N\/s/,
    );
    expect(output.lines.join('\n')).toMatch(/bad\.campaign\.yaml has 1 error\(s\).*nothing was planned/);
    writeFileSync(
      join(dir, 'campaigns', 'worse.campaign.yaml'),
      'flow: ofer\nrate: 1/s\nquiet_hours: { from: "21:00", to: "09:00" }\ntime_zone: Europe/Pari\n',
    );
    expect(await campaign(['start', 'worse', ...common])).toBe(2);
    expect(output.lines.join('\n')).toMatch(/worse\.campaign\.yaml:1:7: error: .*ofer[\s\S]*offer/);
    expect(output.lines.join('\n')).toMatch(/worse\.campaign\.yaml:4:12: error: [\s\S]*Europe\/Paris/);
    expect(output.lines.join('\n')).toMatch(/has 2 error\(s\).*nothing was started/);
    expect(h.db.prepare('SELECT count(*) AS n FROM campaigns').get()).toEqual({ n: 0 });

    expect(
      await campaign(['start', join(dir, 'campaigns', 'spring.campaign.yaml'), ...common, '--json']),
    ).toBe(0);
    const started = JSON.parse(output.lines.join('\n')) as { id: string; recipients: number };
    expect(started.recipients).toBe(3);
    expect(await campaign(['start', 'spring', ...common])).toBe(1); // already running

    // The bot's engine releases what the command started, at 1 per second.
    h.advance(1000);
    expect(await h.engine.campaigns.release(h.time)).toBe(1);
    h.engine.processPending();
    expect(await campaign(['pause', 'spring', ...common])).toBe(0);
    expect(lines()[0]).toMatch(/^spring \(spring-.*\): paused, flow offer, 3 recipient\(s\)/);
    h.advance(5000);
    expect(await h.engine.campaigns.release(h.time)).toBe(0);
    expect(await campaign(['resume', 'spring', ...common])).toBe(0);
    h.advance(1000);
    expect(await h.engine.campaigns.release(h.time)).toBe(1);
    h.engine.processPending();
    expect(await campaign(['cancel', started.id, ...common])).toBe(0);
    expect(await campaign(['status', 'spring', ...common])).toBe(0);
    expect(lines()[1]).toBe('  queued 1, released 0, sent 2, failed 0, skipped 0');
    expect(await campaign(['status', 'spring', '--recipients', 'sent', ...common])).toBe(0);
    expect(lines()).toEqual(['u:1  sent', 'u:2  sent']);
    expect(await campaign(['resume', 'spring', ...common])).toBe(1);
    expect(await campaign(['status', 'nope', ...common])).toBe(1);
    expect(await campaign(['launch', 'x'])).toBe(2);

    // botflow stats shows the campaign after the funnels, and alone with --campaigns.
    expect(await output.run(stats, ['--db', h.path, join(dir, 'flows')])).toBe(0);
    expect(lines()).toContain('Campaigns');
    expect(await output.run(stats, ['--db', h.path, '--campaigns', '--json', join(dir, 'flows')])).toBe(0);
    const [figures] = JSON.parse(output.lines.join('\n')) as {
      name: string;
      byStatus: object;
      funnel: object;
    }[];
    expect(figures).toMatchObject({
      name: 'spring',
      byStatus: { queued: 1, sent: 2 },
      funnel: { reached: 2, started: 0, finished: 0 },
    });
  });
});
