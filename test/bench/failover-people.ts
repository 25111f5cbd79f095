/**
 * The people of the failover benchmark (failover.bench.ts), on the example flows (flows/): 80 % go
 * through sign-up (a quarter of them send bursts of messages, some press buttons where text is expected
 * or type where a button is), 20 % book a table; probes reach sign-up's summary and then write to it at
 * known times (each answered by "Please use the buttons…"). And the reply latencies of what they saw.
 */

import type { SeenMessage } from '../../src/sandbox/control/view.ts';
import type { SandboxControl } from '../../src/sandbox/control-client.ts';

type Control = SandboxControl;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the run still goes on (probes stop writing when it is over). */
export interface Running {
  on: boolean;
}

function buttonsOf(message: SeenMessage | undefined): string[] {
  return (message?.keyboard ?? []).flat().map((b) => String((b as { text?: unknown }).text ?? ''));
}

/** Waits for the bot's latest keyboard message with a button matching `want`, presses it. False: never came. */
async function press(ctl: Control, uid: number, want: RegExp, timeoutMs = 90_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const view = await ctl.view(uid);
    const menu = [...view.messages].reverse().find((m) => m.from === 'bot' && m.keyboard);
    const text = buttonsOf(menu).find((t) => want.test(t));
    if (menu && text) {
      await ctl.pressButton(uid, menu.message_id, { text }).catch(() => {});
      return true;
    }
    await sleep(700);
  }
  return false;
}

/** Waits until the bot said something matching `want` (polling slowly: hundreds of people poll). */
async function heard(ctl: Control, uid: number, want: RegExp, timeoutMs = 90_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const view = await ctl.view(uid);
    if (view.messages.some((m) => m.from === 'bot' && want.test(m.text ?? ''))) return true;
    await sleep(700);
  }
  return false;
}

const think = (random: () => number, min = 1200, max = 3500) => sleep(min + random() * (max - min));

/** One person through sign-up. */
export async function signUp(
  ctl: Control,
  uid: number,
  random: () => number,
  kind: { burst: boolean; wrongInput: boolean },
): Promise<void> {
  await ctl.startBot(uid);
  await think(random);
  await ctl.sendText(uid, 'dialog', `Name${uid}`);
  await think(random);
  if (kind.burst) {
    for (const text of ['abc', 'twenty', '27']) await ctl.sendText(uid, 'dialog', text);
  } else await ctl.sendText(uid, 'dialog', '27');
  await think(random);
  await ctl.sendText(uid, 'dialog', `p${uid}@example.com`);
  if (!(await heard(ctl, uid, /Please check/))) return;
  await think(random);
  if (kind.wrongInput) {
    await ctl.sendText(uid, 'dialog', 'ok'); // text where a button is expected
    await think(random);
    await press(ctl, uid, /Edit age/);
    await think(random, 600, 1200);
    await press(ctl, uid, /Confirm/); // a button of the old summary where text is expected
    await think(random);
    await ctl.sendText(uid, 'dialog', '28');
    await think(random);
  }
  await press(ctl, uid, /Confirm/);
}

/** One person booking a table. */
export async function book(ctl: Control, uid: number, random: () => number): Promise<void> {
  await ctl.startBot(uid);
  await think(random);
  await ctl.sendText(uid, 'dialog', '/book');
  await think(random);
  await ctl.sendText(uid, 'dialog', 'tomorrow');
  await think(random);
  await ctl.sendText(uid, 'dialog', '2');
  if (!(await press(ctl, uid, /seats/))) return;
  await think(random);
  await ctl.sendText(uid, 'dialog', 'window');
  await think(random);
  await press(ctl, uid, /Done/);
  await think(random);
  await ctl.sendText(uid, 'dialog', 'yes');
}

/** A probe: reaches sign-up's summary, then writes every 1.5 to 2.5 s while the run goes on. */
export async function probe(
  ctl: Control,
  uid: number,
  random: () => number,
  running: Running,
): Promise<void> {
  await ctl.startBot(uid);
  await sleep(1000);
  await ctl.sendText(uid, 'dialog', `Probe${uid}`);
  await sleep(1000);
  await ctl.sendText(uid, 'dialog', '30');
  await sleep(1000);
  await ctl.sendText(uid, 'dialog', `probe${uid}@example.com`);
  await heard(ctl, uid, /Please check/);
  for (let n = 1; running.on; n++) {
    await ctl.sendText(uid, 'dialog', `probe ${n}`);
    await sleep(1500 + random() * 1000);
  }
}

/** A reply: when the person wrote (ms, platform clock) and how long until the bot's next message. */
export interface Reply {
  at: number;
  ms: number;
}

/**
 * The replies a person saw, in the chat's order: each bot message answers the earliest message of theirs not answered yet that
 * came before it (bot messages with none, like a second message of one step, answer nothing). Also the
 * person's messages left without an answer.
 */
export function repliesOf(messages: readonly SeenMessage[]): { replies: Reply[]; unanswered: number } {
  const waiting: number[] = [];
  const replies: Reply[] = [];
  for (const m of messages) {
    if (m.from === 'me') waiting.push(m.timestamp);
    else if (m.from === 'bot' && waiting.length > 0) {
      const at = waiting.shift()!;
      replies.push({ at, ms: m.timestamp - at });
    }
  }
  return { replies, unanswered: waiting.length };
}

/** p50/p95/p99/max of `values` (ms), and how many. */
export function spread(values: readonly number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0;
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}
