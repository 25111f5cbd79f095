import { describe, expect, it } from 'vitest';
import { loadFlows } from '../../src/flows/load.ts';
import { Drive } from './drive.ts';

const loaded = await loadFlows('flows');
const flow = (id: string) => {
  const f = loaded.flows.find((x) => x.id === id);
  if (!f) throw new Error(`flow ${id} did not compile: ${JSON.stringify(loaded.problems)}`);
  return f;
};

describe('example flows compile and behave (pure transitions)', () => {
  it('compiles every example without problems', () => {
    expect(loaded.problems).toEqual([]);
    expect(loaded.flows.map((f) => f.id).sort()).toEqual([
      'booking',
      'help',
      'order_tracking',
      'rate_us',
      'settings',
      'signup',
      'support',
    ]);
  });

  it('signup: happy path with an invalid age, reminders and the summary', () => {
    const d = new Drive(flow('signup'));
    expect(d.step).toBe('ask_name');
    expect(d.said).toEqual(['Welcome! What is your <b>name</b>?']);
    expect(d.effects).toContainEqual({ kind: 'timer.arm', name: 'ask_name:remind:0', delayMs: 3_600_000 });
    d.text('<Ann>');
    expect(d.step).toBe('ask_age');
    expect(d.said).toEqual(['Nice to meet you, &lt;Ann&gt;. How old are you?']);
    expect(d.effects).toContainEqual({ kind: 'timer.cancel', name: 'ask_name:remind:0' });
    d.text('abc');
    expect(d.step).toBe('ask_age');
    expect(d.said).toEqual(['Please send your age as a number, like 27.']);
    d.text('7');
    expect(d.said).toEqual(['Ages from 14 to 120 only, please.']);
    d.text('30');
    expect(d.step).toBe('ask_email');
    expect(d.vars.age).toBe(30);
    d.timer('ask_email:remind:0');
    expect(d.said).toEqual([]);
    d.text('ann@mailinator.com');
    expect(d.said).toEqual(['Please use a permanent address, not a throwaway one.']);
    d.text('Ann@Example.org');
    expect(d.step).toBe('confirm');
    expect(d.said[0]).toContain('Email: ann@example.org');
    expect(d.keyboard[0]).toEqual([['✅ Confirm', 'ok']]);
    d.press('edit_age');
    expect(d.step).toBe('ask_age');
    d.text('31');
    expect(d.step).toBe('confirm');
    expect(d.said[0]).toContain('Age: 31');
    d.press('ok');
    expect(d.snapshot.status).toBe('done');
    expect(d.said).toEqual(['Thanks, &lt;Ann&gt;! You are signed up.']);
    expect(d.effects).toContainEqual({ kind: 'api', op: 'sendAction', args: { action: 'typing_on' } });
  });

  it('signup: retries run out into the exhausted path; minors branch off', () => {
    const d = new Drive(flow('signup'));
    d.text('A');
    d.text('B');
    expect(d.step).toBe('ask_name');
    d.text('C');
    expect(d.snapshot.status).toBe('done');
    expect(d.said).toEqual(['A name is 2 to 64 characters long.', "Let's stop here for now."]);
    const m = new Drive(flow('signup'));
    m.text('Tim');
    m.text('15');
    expect(m.step).toBe('minor');
    expect(m.said).toEqual(['Sorry, you must be 18 or older to sign up.']);
  });

  it('signup: /help runs the help flow and comes back to the same step; /cancel ends', () => {
    const d = new Drive(flow('signup'));
    d.text('Ann');
    d.command('help');
    expect(d.said).toEqual([
      'I ask a few questions, one at a time. Send /cancel to stop at any moment.',
      'Nice to meet you, Ann. How old are you?',
    ]);
    expect(d.step).toBe('ask_age');
    d.command('cancel');
    expect(d.snapshot.status).toBe('done');
    expect(d.said).toEqual(['Sign-up cancelled. Send /signup to start again.']);
  });

  it('signup: the idle timer says goodbye and ends', () => {
    const d = new Drive(flow('signup'));
    d.timer('ask_name:remind:0');
    expect(d.said).toEqual(['Still there? Just type your name to continue.']);
    d.timer('ask_name:idle');
    expect(d.step).toBe('abandoned');
    expect(d.said).toEqual(['I have put your sign-up aside. Send /signup to start again.']);
  });

  it('settings: menus edit the pressed message in place and switch language', () => {
    const d = new Drive(flow('settings'), { locale: 'en-GB' });
    expect(d.said).toEqual(['Settings']);
    expect(d.effects[0]).toMatchObject({ kind: 'api', op: 'sendMessage', ref: 'render' });
    d.press('language', 'mid.42');
    expect(d.effects).toEqual([
      expect.objectContaining({
        op: 'editMessage',
        args: expect.objectContaining({ message_id: 'mid.42', text: 'Choose your language' }),
      }),
    ]);
    d.press('ru', 'mid.42');
    expect(d.said).toEqual(['Настройки']);
    expect(d.keyboard[1]).toEqual([['Закрыть', 'close']]);
    d.press('notifications', 'mid.42');
    expect(d.said).toEqual(['Уведомления включены.']);
    d.press('off', 'mid.42');
    expect(d.said).toEqual(['Готово: уведомления off.', 'Настройки']);
    d.press('back');
    expect(d.step).toBe('main');
  });

  it('support: photo or file, contact, description, confirmation', () => {
    const d = new Drive(flow('support'));
    d.text('here it is');
    expect(d.said).toEqual(['Please attach a photo or a file (use the paperclip).']);
    d.attach({
      type: 'file',
      payload: { url: 'https://files/x.log', token: 't1' },
      filename: 'x.log',
      size: 10,
    });
    expect(d.vars.attachment).toEqual({
      kind: 'file',
      url: 'https://files/x.log',
      token: 't1',
      filename: 'x.log',
      size: 10,
    });
    expect(d.keyboard).toEqual([[['📇 Share my contact', undefined]]]);
    d.attach({
      type: 'contact',
      payload: { vcf_info: 'BEGIN:VCARD\nFN:Ann Lee\nTEL;TYPE=cell:+1 555 0100\nEND:VCARD' },
    });
    expect(d.vars.contact).toEqual({ name: 'Ann Lee', phone: '+15550100', user_id: null });
    d.text('It crashes when I press the blue button.');
    expect(d.step).toBe('confirm');
    d.press('send');
    expect(d.snapshot.status).toBe('done');
    expect(
      d.effects.some((e) => e.kind === 'api' && String(e.args.text).startsWith('New support request')),
    ).toBe(true);
  });
});
