// `botflow check` on campaign files: each check with a file it catches and one it must let pass, the
// campaign sample of docs/campaigns.md, and the command itself (nothing about campaigns without a folder).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkCampaignSource, knownFlows } from '../../src/cli/campaign-check.ts';
import { initProject } from '../../src/cli/init-command.ts';
import { compileSources } from '../../src/flows/load.ts';
import { formatProblem } from '../../src/flows/problems.ts';
import { EMPTY_REGISTRY } from '../../src/flows/registry.ts';
import { campaignsPageYaml, SPRING_OFFER } from './fixtures.ts';

const repo = new URL('../../', import.meta.url).pathname;
const yamls = campaignsPageYaml();

const OFFER = SPRING_OFFER;
const MEMBERS = `flow: members
start: ask_plan
triggers:
  - command: plan
steps:
  ask_plan:
    type: input
    say: Which plan?
    input: text
    save: plan
    retries: { max: 2, exhausted: { goto: done } }
    next: done
  done:
    type: end
    tag: member
    do: [{ tag: [opted_out] }]
`;
const known = knownFlows(
  [
    { file: 'flows/spring_offer.flow.yaml', source: OFFER },
    { file: 'flows/members.flow.yaml', source: MEMBERS },
  ],
  EMPTY_REGISTRY,
);

/** The problems of a campaign file as `file:line:col: severity: message`, and their hints. */
function check(source: string) {
  const problems = checkCampaignSource(source, 'campaigns/spring.campaign.yaml', known);
  return {
    lines: problems.map((p) => formatProblem({ ...p, hint: undefined })),
    hints: problems.map((p) => p.hint),
  };
}
const good = 'flow: spring_offer\nwith: { code: SPRING26 }\n';

describe('botflow check on campaign files', () => {
  it('lets a good campaign pass: the flow is known, the tags and variables are set by flows', () => {
    const campaign = `${good}segment:
  where:
    tags: { all: [member], none: [opted_out] }
    vars: { plan: { in: [basic, pro] } }
    flow: { id: members, ended_at: ask_plan }
rate: 300/min
quiet_hours: { from: "21:00", to: "09:00" }
time_zone: Europe/Paris
`;
    expect(check(campaign).lines).toEqual([]);
  });

  it('reports YAML syntax errors where they are, with what to do', () => {
    const r = check('flow: spring_offer\nrate: [10/s\n');
    expect(r.lines[0]).toMatch(/^campaigns\/spring\.campaign\.yaml:\d+:\d+: error: YAML syntax: /);
    expect(r.hints[0]).toBeTruthy();
    expect(check(good).lines).toEqual([]);
  });

  it('reports the shape: unknown keys with a guess, missing keys, values that do not fit', () => {
    const r = check(`flw: spring_offer
rate: fast
quiet_hours: { from: 25:00, to: "09:00" }
segment:
  wher: {}
cap: { max: 0, per: 7d }
`);
    expect(r.lines).toEqual([
      'campaigns/spring.campaign.yaml:1:1: error: unknown key "flw"',
      'campaigns/spring.campaign.yaml:2:7: error: rate: "fast" is not a rate such as 10/s or 300/min',
      'campaigns/spring.campaign.yaml:3:22: error: quiet_hours.from: "25:00" is not a time of day HH:MM, such as 21:00',
      'campaigns/spring.campaign.yaml:5:3: error: segment: unknown key "wher"',
      'campaigns/spring.campaign.yaml:6:13: error: cap.max: 0 is less than 1',
    ]);
    expect(r.hints).toEqual([
      'did you mean "flow"?',
      'write N/s or N/min: rate: 10/s',
      'write a time of day in quotes: "21:00"',
      'did you mean "where"?',
      'write a whole number, 1 or more',
    ]);
    expect(check('rate: 10/s\n').lines).toEqual([
      'campaigns/spring.campaign.yaml:1:1: error: flow: is required',
    ]);
  });

  it('refuses a flow that is not among the checked flows, with a guess', () => {
    const r = check('flow: spring_ofer\n');
    expect(r.lines).toEqual([
      'campaigns/spring.campaign.yaml:1:7: error: flow: unknown flow "spring_ofer": botflow campaign start would refuse it',
    ]);
    expect(r.hints).toEqual(['did you mean "spring_offer"? flows: members, spring_offer']);
  });

  it('warns about a variable passed with `with:` that the flow never reads', () => {
    const r = check('flow: spring_offer\nwith: { cdoe: SPRING26 }\n');
    expect(r.lines).toEqual([
      'campaigns/spring.campaign.yaml:2:9: warning: with.cdoe: flow spring_offer never reads "cdoe"',
    ]);
    expect(r.hints[0]).toMatch(/^did you mean "code"\?/);
    // An i18n flow reads its variables in the catalogs.
    const i18n = `flow: offer
start: s
i18n: { default_locale: en }
steps:
  s: { type: end, say: offer-text }
`;
    const withCatalog = knownFlows([{ file: 'offer.flow.yaml', source: i18n }], EMPTY_REGISTRY, [
      'offer-text = Use { $code }',
    ]);
    expect(checkCampaignSource('flow: offer\nwith: { code: X }\n', 'c.campaign.yaml', withCatalog)).toEqual(
      [],
    );
  });

  it('warns about segment tags and variables no flow sets, and flows or steps that do not exist', () => {
    const r = check(`${good}segment:
  where:
    tags: { any: [membr] }
    vars: { pln: pro }
    flow: { id: members, ended_at: ask_pln }
`);
    expect(r.lines).toEqual([
      'campaigns/spring.campaign.yaml:5:19: warning: segment.where.tags.any.0: no flow sets the tag "membr"',
      'campaigns/spring.campaign.yaml:6:13: warning: segment.where.vars.pln: no flow saves the variable "pln"',
      'campaigns/spring.campaign.yaml:7:36: warning: segment.where.flow.ended_at: members has no step "ask_pln": nobody matches',
    ]);
    expect(r.hints.map((h) => h?.split('?')[0])).toEqual([
      'did you mean "member"',
      'did you mean "plan"',
      'did you mean "ask_plan"',
    ]);
    expect(check(`${good}segment: { where: { flow: { id: memebrs } } }\n`).lines).toEqual([
      'campaigns/spring.campaign.yaml:3:33: warning: segment.where.flow.id: unknown flow "memebrs": nobody matches',
    ]);
  });

  it('checks the rate, the quiet hours and the time zone', () => {
    const r = check(`${good}rate: 0/s
quiet_hours: { from: "21:00", to: "21:00" }
time_zone: Europe/Pari
`);
    expect(r.lines).toEqual([
      'campaigns/spring.campaign.yaml:3:7: error: rate: 0/s sends nothing',
      'campaigns/spring.campaign.yaml:4:14: warning: quiet_hours: from and to are both 21:00: nobody is ever held',
      'campaigns/spring.campaign.yaml:5:12: error: time_zone: "Europe/Pari" is not a known time zone',
    ]);
    expect(r.hints[2]).toMatch(/^did you mean "Europe\/Paris"\?/);
    expect(check(`${good}rate: 40/s\n`).lines).toEqual([
      'campaigns/spring.campaign.yaml:3:7: warning: rate: 40/s is above 25/s: campaigns never send faster (the platform allows 30 requests a second for everything)',
    ]);
    expect(check(`${good}time_zone: Asia/Tokyo\n`).lines).toEqual([
      'campaigns/spring.campaign.yaml:3:12: warning: time_zone: is only used for quiet hours, and there are none',
    ]);
    const fine = `${good}rate: 25/s\nquiet_hours: { from: "22:30", to: "08:00" }\ntime_zone: America/New_York\n`;
    expect(check(fine).lines).toEqual([]);
  });

  it('tells the flows the variables campaigns start them with: {{code}} is known where every campaign passes it', () => {
    const warnings = (started?: Map<string, string[][]>) =>
      compileSources(
        [{ file: 'spring_offer.flow.yaml', source: OFFER }],
        EMPTY_REGISTRY,
        new Map(),
        '.',
        started,
      ).problems.map((p) => p.message);
    expect(warnings()).toEqual(['unknown variable "code" in {{code}}']);
    expect(warnings(new Map([['spring_offer', [['code']]]]))).toEqual([]);
    // A campaign that does not pass it: the flow may start without it.
    expect(warnings(new Map([['spring_offer', [['code'], []]]]))).toEqual([
      '"code" is unset when the flow starts at "offer"',
    ]);
    // A flow a trigger starts too: the trigger passes nothing.
    const triggered = OFFER.replace('start: offer', 'start: offer\ntriggers:\n  - command: offer');
    expect(
      compileSources(
        [{ file: 'spring_offer.flow.yaml', source: triggered }],
        EMPTY_REGISTRY,
        new Map(),
        '.',
        new Map([['spring_offer', [['code']]]]),
      ).problems.map((p) => p.message),
    ).toEqual(['"code" is unset when the flow starts at "offer"']);
    expect(warnings(new Map([['other', [['code']]]]))).toEqual(['unknown variable "code" in {{code}}']);
  });

  it('passes the campaign sample of docs/campaigns.md with its flows, with no warning', () => {
    const signup = yamls.find((y) => y.startsWith('flow: signup'))!;
    const campaign = yamls.find((y) => /^segment:/m.test(y))!;
    const sampleFlows = knownFlows(
      [
        { file: 'flows/signup.flow.yaml', source: signup },
        { file: 'flows/spring_offer.flow.yaml', source: OFFER },
        { file: 'flows/members.flow.yaml', source: MEMBERS },
      ],
      EMPTY_REGISTRY,
    );
    expect(checkCampaignSource(campaign, 'campaigns/spring.campaign.yaml', sampleFlows)).toEqual([]);
  });
});

describe('botflow check with a campaigns folder', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  /** A project inside this checkout (its tmp/ is ignored), so its registry finds the sources. */
  function project(): string {
    mkdirSync(join(repo, 'tmp'), { recursive: true });
    const dir = mkdtempSync(join(repo, 'tmp', 'check-campaigns-'));
    dirs.push(dir);
    return dir;
  }
  const botflow = (cwd: string, ...args: string[]) =>
    spawnSync(process.execPath, [join(repo, 'bin/botflow.js'), 'check', ...args], { cwd, encoding: 'utf8' });

  it('prints nothing about campaigns without a folder: the botflow init project passes as it was', () => {
    const dir = project();
    initProject(dir);
    for (const name of readdirSync(join(dir, 'flows')).filter((n) => n.endsWith('.ts'))) {
      const file = join(dir, 'flows', name);
      const text = readFileSync(file, 'utf8');
      writeFileSync(file, text.replaceAll("from 'botflow-engine'", `from '${join(repo, 'src/index.ts')}'`));
    }
    const r = botflow(dir);
    expect(r.stdout).not.toMatch(/campaign/);
    expect(r.stdout).toContain('0 error(s), 0 warning(s)');
    expect(r.status).toBe(0);
  }, 60_000);

  it('checks campaigns/ (or --campaigns) against the flows, and fails on an error', () => {
    const dir = project();
    mkdirSync(join(dir, 'flows'));
    mkdirSync(join(dir, 'campaigns'));
    writeFileSync(join(dir, 'flows', 'spring_offer.flow.yaml'), OFFER);
    writeFileSync(join(dir, 'campaigns', 'spring.campaign.yaml'), good);
    writeFileSync(join(dir, 'campaigns', 'draft.yaml'), good);
    const ok = botflow(dir);
    expect(ok.stdout).toContain(
      'campaigns/draft.yaml:1:1: warning: draft.yaml is not read: only *.campaign.yaml files are campaigns',
    );
    expect(ok.stdout).toContain('1 flow file(s), 1 compiled, 1 campaign file(s): 0 error(s), 1 warning(s)');
    expect(ok.status).toBe(0);
    mkdirSync(join(dir, 'other'));
    writeFileSync(join(dir, 'other', 'typo.campaign.yaml'), 'flow: spring_ofer\n');
    const bad = botflow(dir, 'flows', '--campaigns', 'other');
    expect(bad.stdout).toMatch(
      /other\/typo\.campaign\.yaml:1:7: error: flow: unknown flow "spring_ofer": botflow campaign start would refuse it\n {4}hint: did you mean "spring_offer"\?/,
    );
    expect(bad.status).toBe(1);
  });
});
