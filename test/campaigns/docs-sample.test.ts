// The samples of docs/campaigns.md run: the signup flow of the page tags people on the harness, and the
// campaign file of the page (with its flow stood in by a one-step offer) plans and starts on them.
import { afterEach, expect, it } from 'vitest';
import { parseCampaignSource } from '../../src/engine/campaigns/file.ts';
import { compileFlow } from '../../src/flows/load.ts';
import { Harness } from '../../src/testing/harness.ts';
import { campaignsPageYaml, SPRING_OFFER } from './fixtures.ts';

const yamls = campaignsPageYaml();
const signup = yamls.find((y) => y.startsWith('flow: signup'))!;
const campaign = yamls.find((y) => /^segment:/m.test(y))!;

const OFFER = SPRING_OFFER;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it('runs the campaign sample of docs/campaigns.md on people the signup sample tagged', async () => {
  const flows = [
    [signup, 'signup'],
    [OFFER, 'spring_offer'],
  ].map(([source, id]) => {
    const { flow, problems } = compileFlow(source!, `${id}.flow.yaml`);
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    return flow!;
  });
  h = await Harness.start({ flows });
  for (const [name, locale] of [
    ['Ann', 'en'],
    ['Ben', 'fr'],
    ['Cid', 'de'],
  ] as const) {
    const p = await h.person(name, locale);
    await h.act(p, { kind: 'start' });
    await h.act(p, { kind: 'say', text: name });
  }
  // The sample asks for plan basic or pro: the signup sample saves no plan, so none match…
  const { name, spec } = parseCampaignSource(campaign, 'campaigns/spring.campaign.yaml');
  expect(name).toBe('spring');
  expect((await h.engine.campaigns.plan(spec)).count).toBe(0);
  // …and without that condition, the members in English or German do (Ben's locale is fr).
  const where = { ...(spec.segment?.where ?? {}) };
  delete where.vars;
  const plan = await h.engine.campaigns.plan({ ...spec, segment: { where } });
  expect(plan.count).toBe(2);
  await h.advance(3_600_000);
  const started = await h.engine.campaigns.start({ ...spec, segment: { where } }, { name });
  await h.advance(1000);
  expect((await h.engine.campaigns.status(started.id)).byStatus.sent).toBeGreaterThan(0);
});
