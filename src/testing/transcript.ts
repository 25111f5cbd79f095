/**
 * The transcript model: what a person does in each turn and what the bot must do in answer. Files are
 * YAML (`*.test.yaml`, one transcript per YAML document); `loadTranscripts` turns them into these types
 * with every problem reported as `file:line:col`.
 */
import type { ClassifierResult } from '../flows/schema-intents.ts';

/** A text expectation as written: `"exact"`, `"~part of it"`, or `"/regular expression/flags"`. */
export type TextPattern = string;

/** What a sent or edited message must look like. Omitted fields are not checked. */
export interface MessageExpectation {
  text?: TextPattern;
  /** Button labels by row, exactly; `none` = the message must have no keyboard. */
  keyboard?: TextPattern[][] | 'none';
}

/** One thing the bot must do, in order. */
export type BotExpectation =
  | { kind: 'send'; message: MessageExpectation }
  | { kind: 'edit'; message: MessageExpectation }
  /** A callback answer: `notify` undefined = not checked, null = silent, text = this notification. */
  | { kind: 'answer'; notify?: TextPattern | null }
  | { kind: 'upload'; type?: string; message: MessageExpectation }
  | { kind: 'delete' }
  | { kind: 'action'; action: string }
  /** Any other API call: the operation and a partial match of its arguments. */
  | { kind: 'call'; op: string; args?: Record<string, unknown> }
  /** A task the bot started: its name and a partial match of its input. */
  | { kind: 'task'; task: string; input?: Record<string, unknown> };

/** Which message a `press` looks at when several bot messages carry the button. */
export type PressTarget = 'latest' | 'previous' | 'first';

/** What the person does in a turn. */
export type PersonAction =
  | { kind: 'start'; payload?: string }
  | { kind: 'say'; text: string }
  | { kind: 'press'; button: string; on: PressTarget }
  | { kind: 'contact'; name?: string; phone?: string }
  | { kind: 'location'; latitude: number; longitude: number }
  | { kind: 'file'; type: 'file' | 'image' | 'video' | 'audio'; name: string; text?: string }
  | { kind: 'stop' }
  | { kind: 'wait'; ms: number; text: string }
  /** An external event for the person (`- event: order_shipped { id: 7 }`), as `bot.events.send` sends it. */
  | { kind: 'event'; event: { name: string; payload: unknown; key?: string } };

/** One turn: an action and what the bot must do (`nothing` = no call at all). */
export interface Turn {
  action: PersonAction;
  bot: BotExpectation[] | 'nothing';
  /** With `say`: what a registered intent classifier answers for the text (`intent: book`). */
  intent?: ClassifierResult;
  /** 1-based line of the turn in its file. */
  line: number;
}

/** Where a transcript begins when not at the flow's start. */
export interface StartAt {
  step: string;
  /** The flow's variables (`{{name}}`…) at that step. */
  context: Record<string, unknown>;
}

/**
 * What a stubbed task does when called: return `result`, fail with `error` (a code, or { code, message }),
 * or time out. With `input`, the stub answers only calls whose input matches (partially).
 */
export interface TaskStub {
  input?: Record<string, unknown>;
  result?: unknown;
  /** A TaskError with this code (tried again when `retryable`, or when the flow's `retry.on` names it). */
  error?: { code: string; message?: string; retryable?: boolean };
  /** An unexpected error with this text (a refused connection, a bug): the failure `error`, retried. */
  throw?: string;
  timeout?: true;
}

/** A transcript's `tasks:` block: stubs, and which tasks run their own code (`real`: all of them). */
export interface TranscriptTasks {
  stubs: Record<string, TaskStub[]>;
  real?: true | string[];
}

/** One faked HTTP exchange (`http:`): a request real tasks make, and the reply it gets. */
export interface HttpFake {
  method: string;
  /** Origin and path, e.g. `https://menu.example/api/menu` (a query string is part of the path). */
  url: string;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** How many requests it answers (default: every one). */
  times?: number;
}

/** One transcript. */
export interface Transcript {
  file: string;
  line: number;
  /** The flow under test (used by coverage and `start_at`). */
  flow: string;
  name: string;
  /** The person who talks to the bot. */
  person: { name: string; locale?: string };
  /** Where the virtual clock starts (ms since the epoch; `clock:` in the file). Default: HARNESS_EPOCH. */
  clock?: number;
  startAt?: StartAt;
  /** Stubs of the registry's tasks, by name; `real` tasks run their own code (with `http` faked). */
  tasks?: Record<string, TaskStub[]>;
  /** Tasks that run the registry's own code: all (`tasks: real`) or these. */
  realTasks?: true | string[];
  /** The outside world of real tasks, faked at the HTTP level; anything else they ask for fails. */
  http?: HttpFake[];
  turns: Turn[];
}
