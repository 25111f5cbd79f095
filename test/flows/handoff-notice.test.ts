// What the operators' chat is told about a person who left a handoff (docs/handoff.md): botflow's built-in
// texts in the flow's default locale (not the person's), or the flow's own `texts:`.
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../src/flows/load.ts';
import { defineRegistry } from '../../src/flows/registry.ts';
import { loadCatalog } from '../../src/flows/texts.ts';

const flow = (head: string) => `flow: desk
start: human
${head}
handoff: { operators_chat: -5 }
steps:
  human: { type: handoff, say: wait, return_to: bye }
  bye: { type: end, say: bye }
`;

function noticeOf(head: string, catalogs = new Map()) {
  const compiled = compileSources(
    [{ file: 'desk.flow.yaml', source: flow(head) }],
    defineRegistry({}),
    catalogs,
  );
  expect(compiled.problems.filter((p) => p.severity === 'error')).toEqual([]);
  const handoff = compiled.flows[0]!.handoff!;
  expect(handoff).toMatchObject({ operatorsChat: -5, steps: ['human'] });
  return handoff.notice!;
}

describe('the notices of a person who left a handoff', () => {
  it('are botflow’s texts, named after the person, in English by default', () => {
    const notice = noticeOf('');
    const vars = { handoff_person: 'Ann', locale: 'ru' };
    expect(notice('waiting', vars, 'u:1')).toBe('🚪 Ann left before an operator took it (u:1)');
    expect(notice('taken', vars, 'u:1')).toBe('🚪 Ann left the conversation (u:1)');
    expect(notice('gone', undefined, 'u:1')).toBe('u:1 left the conversation: nothing was sent to them');
  });

  it('follow the flow’s default locale and its texts: overrides', () => {
    const catalogs = new Map([['ru', loadCatalog('ru', 'ru.ftl', 'wait = Ждите\nbye = Пока\n')]]);
    const ru = noticeOf('i18n: { default_locale: ru }', catalogs);
    expect(ru('waiting', { handoff_person: 'Аня' }, 'u:1')).toBe(
      '🚪 Аня ушёл(а), не дождавшись оператора (u:1)',
    );
    const own = noticeOf('texts: { handoff-left-taken: "{{person}} hung up" }');
    expect(own('taken', { handoff_person: 'Ann' }, 'u:1')).toBe('Ann hung up');
  });
});
