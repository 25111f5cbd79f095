/**
 * The flow file format, written once in zod: the loader validates with it and `botflow schema` exports
 * it as JSON Schema for editors. Every object is strict, so a misspelt key is an error, never ignored.
 */
import { z } from 'zod';
import { BUILTIN_TEXT_KEYS } from './builtin-texts.ts';
import { EventDeclaration, EventName, OnEvent } from './schema-events.ts';
import { HandoffSettings, HandoffStep } from './schema-handoff.ts';
import { IntentKeywords, understandSchema } from './schema-intents.ts';
import {
  Aliases,
  Condition,
  Duration,
  EffectCall,
  Id,
  Migration,
  Route,
  RouteShape,
  Rule,
  Text,
  TimeZone,
  Vars,
} from './schema-parts.ts';
import { TagCall, TagList } from './tags.ts';

export { EventRoute } from './schema-events.ts';
export { Condition, Migration, Route, Rule } from './schema-parts.ts';

export const Understand = understandSchema(Route);
export type Understand = z.infer<typeof Understand>;

/** Where a task's outcome leads: a step id, or a route (say, set, goto). */
const TaskRoute = z.union([Id, Route]);
/** A route for the failures whose code is `code` (one or several); without `code`, every other failure. */
const ErrorRoute = z.strictObject({
  code: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
  ...RouteShape,
});
export const TaskCall = z
  .strictObject({
    task: Id.describe("A task registered in TypeScript (the registry's `tasks`)"),
    input: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'The task\'s input: "{{var}}" copies a variable, "= expr" computes one, anything else is literal',
      ),
    save_as: z.string().optional().describe('Variable that receives the result'),
    on_done: TaskRoute.optional().describe("Where to go with the result (default: the step's next)"),
    on_error: z
      .union([TaskRoute, z.array(ErrorRoute).min(1)])
      .optional()
      .describe('Where a failure goes: a step, a route, or [{code: slot_taken, goto: …}, {goto: …}]'),
    on_timeout: TaskRoute.optional().describe('Where a timeout goes (default: on_error)'),
    timeout: Duration.optional().describe('Per attempt (default 30s)'),
    retry: z
      .strictObject({
        attempts: z.number().int().min(1).max(20).describe('Attempts in all (default 3)'),
        backoff: Duration.optional().describe('Wait before the first retry, doubled each time (default 1s)'),
        on: z.array(z.string()).optional().describe('Codes retried besides timeouts and unexpected errors'),
        only: z.array(z.string()).min(1).optional().describe('Retry just these codes (not the defaults)'),
      })
      .refine((r) => !(r.on && r.only), 'retry takes on (codes added to the defaults) or only, not both')
      .optional(),
    on_cancel: z.strictObject({ task: Id }).optional().describe('Task run if cancelled after it started'),
    while_running: z
      .union([z.enum(['queue', 'ignore', 'cancel']), z.strictObject({ ignore: Text })], {
        error: 'while_running is queue, ignore, cancel or { ignore: text }',
      })
      .optional()
      .describe(
        'What a message sent while the task runs does: queue (default), ignore (with a word), cancel',
      ),
  })
  .describe('Start a task: the step waits for its result, showing "typing…"');
export type TaskCall = z.infer<typeof TaskCall>;
const StepDo = z
  .array(z.union([EffectCall, TaskCall, TagCall]))
  .optional()
  .describe('Registered effects, tags and (on message steps) a task, run when the step is entered');

/** The fields of the platform's open_app button. */
const OpenApp = z.strictObject({
  web_app: z
    .string()
    .min(1)
    .optional()
    .describe('The public name of the bot whose mini-app opens, or a link to it'),
  contact_id: z.number().int().optional().describe('The id of the bot whose mini-app opens'),
  payload: z
    .string()
    .optional()
    .describe(
      'Start parameter handed to the mini-app in its initData (start_param); {{variables}} filled in',
    ),
});
export const Button = z
  .strictObject({
    id: Id.optional().describe('Stable id of a callback button (what a press reports)'),
    text: Text,
    aliases: Aliases.optional(),
    value: z.string().optional().describe('Extra data carried with the press (saved as `button_value`)'),
    url: z.string().optional().describe('Makes this a link button'),
    request: z.enum(['contact', 'location']).optional().describe('Ask for the contact or the location'),
    quick: z
      .boolean()
      .optional()
      .describe('With request: location, sends the location without asking the person to confirm'),
    open_app: OpenApp.optional().describe("Opens a mini-app (the platform's open_app button)"),
    clipboard: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe('Copies this text to the clipboard (at most 1024 characters; {{variables}} filled in)'),
    message: z
      .literal(true)
      .optional()
      .describe("Sends the button's text into the chat as the person, like a typed answer"),
    ...Route.shape,
  })
  .describe(
    'A callback button (id), a link (url), a request (contact | location), a mini-app (open_app), a copy (clipboard) or a reply (message: true)',
  );
export type Button = z.infer<typeof Button>;

const Keyboard = z.array(z.array(Button)).describe('Rows of buttons');
const Media = z
  .strictObject({
    image: z.string().optional(),
    video: z.string().optional(),
    audio: z.string().optional(),
    file: z.string().optional(),
  })
  .describe('One media file: a path (uploaded) or an http(s) URL');
export const StalePolicy = z
  .union([z.enum(['rerender', 'accept', 'notify']), z.strictObject({ notify: Text })], {
    error: 'on_stale is rerender, accept, notify or { notify: text }',
  })
  .describe('What a press on an outdated keyboard does');
/** Variables set as a route is taken: after the answer is saved, before the next step is entered. */
const RouteSet = Vars.describe(
  'Variables set when this route is taken (after the answer is saved); "= expr" computes one',
);
const Next = z.union([
  Id,
  z.array(z.strictObject({ when: Condition.optional(), goto: Id, set: RouteSet.optional() })).min(1),
]);
/** Where the conversation goes when the flow itself fails at a step (an expression, a text, a guard). */
const OnError = Route.describe(
  "Where to go when the flow fails here at run time (an expression, a text or a guard): say, set, goto. Default: the flow's on_error, else an apology and the end",
);

const common = {
  set: Vars.optional().describe(
    'Variables set when the step is entered, before its text is drawn; "= expr" computes one',
  ),
  say: Text.optional(),
  media: Media.optional(),
  do: StepDo,
  tag: TagList.optional().describe(
    'Tags set on the person when the step is entered (they outlive the session)',
  ),
  untag: TagList.optional().describe('Tags taken off the person when the step is entered'),
  remind: z
    .array(z.strictObject({ after: Duration, say: Text }))
    .optional()
    .describe('Reminders while the person stays silent on this step'),
  idle: z
    .strictObject({ after: Duration, say: Text.optional(), goto: Id })
    .optional()
    .describe('Where to go when the person stays silent'),
  on_stale: StalePolicy.optional(),
  render: z
    .enum(['new', 'edit'])
    .optional()
    .describe(
      'edit: after a button press, redraw the pressed message; after typed input a new message is sent',
    ),
  on_error: OnError.optional(),
};

const INPUT_KINDS = [
  'text',
  'number',
  'integer',
  'email',
  'phone',
  'date',
  'time',
  'url',
  'choice',
  'multi_choice',
  'contact',
  'location',
  'photo',
  'file',
] as const;
export const InputKind = z.enum(INPUT_KINDS);
export type InputKind = z.infer<typeof InputKind>;

const MessageStep = z.strictObject({
  type: z.literal('message'),
  ...common,
  keyboard: Keyboard.optional(),
  next: Next,
});
const InputStep = z.strictObject({
  type: z.literal('input'),
  ...common,
  input: z.union([InputKind, z.array(InputKind).min(1)], {
    error: `input is one of ${INPUT_KINDS.join(', ')}, or a list of them`,
  }),
  options: z
    .array(
      z.strictObject({
        id: z.string().min(1).max(64).describe('What is saved: any text, like "18:00"'),
        text: Text,
        aliases: Aliases.optional(),
      }),
    )
    .optional()
    .describe('Choices (for input: choice or multi_choice), shown as buttons'),
  options_from: z
    .strictObject({
      list: z.string().describe('The variable holding the list (a task result, a computed value)'),
      text: Text.optional().describe('Button text, with {{item}} (or {{item.time}}) for the element'),
      value: z.string().optional().describe('What is saved: item (default) or a field of it, like item.time'),
      page_size: z.number().int().min(1).max(30).optional().describe('Choice buttons per page (default 8)'),
      empty: Route.optional().describe('Where to go when the list is empty (say, set, goto)'),
    })
    .optional()
    .describe('Choices built from a list in a variable, paged when long (input: choice)'),
  columns: z.number().int().min(1).max(7).optional().describe('Choice buttons per row (default 1)'),
  error: Text.optional().describe('Said when the answer cannot be read as the expected kind'),
  validate: z.array(Rule).optional(),
  retries: z.strictObject(
    {
      max: z.number().int().min(1).max(20),
      exhausted: Route.describe('Where to go after the last failed attempt'),
    },
    { error: 'an input needs `retries: {max, exhausted: {goto: …}}` so that nobody gets stuck' },
  ),
  save: z.string().optional().describe('Context variable that receives the answer'),
  understand: Understand.optional(),
  time_zone: TimeZone.optional(),
  keyboard: Keyboard.optional(),
  on_event: OnEvent.optional(),
  next: Next,
});
const MenuStep = z.strictObject({
  type: z.literal('menu'),
  ...common,
  keyboard: Keyboard,
  on_text: Route.optional().describe('What typed text does while the menu is shown'),
  understand: Understand.optional(),
  on_event: OnEvent.optional(),
});
const WaitStep = z
  .strictObject({
    type: z.literal('wait'),
    ...common,
    keyboard: Keyboard.optional(),
    on_event: OnEvent,
    understand: Understand.optional(),
  })
  .describe(
    'Says its text, then waits for external events (on_event), buttons and commands; idle: {after, goto} is its timeout',
  );
const BranchStep = z.strictObject({
  type: z.literal('branch'),
  cases: z.array(z.strictObject({ when: Condition, goto: Id, set: RouteSet.optional() })).min(1),
  else: Id,
  on_error: OnError.optional(),
});
const CallStep = z.strictObject({
  type: z.literal('call'),
  ...common,
  flow: Id.describe('The flow to run; when it ends, this flow continues at `next`'),
  with: Vars.optional().describe(
    'Parameters: variables set before the called flow starts ("{{var}}" copies one)',
  ),
  save_as: z.string().optional().describe('Variable that receives the value the called flow returns'),
  next: Id.describe('Where this flow continues after the called flow ends'),
});
const EndStep = z.strictObject({
  type: z.literal('end'),
  return: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('In a called flow: the variable (or list of variables, as an object) given back to the caller'),
  say: Text.optional(),
  media: Media.optional(),
  do: common.do,
  tag: common.tag,
  untag: common.untag,
});

export const Step = z.discriminatedUnion('type', [
  MessageStep,
  InputStep,
  MenuStep,
  WaitStep,
  BranchStep,
  CallStep,
  EndStep,
  HandoffStep,
]);
export type Step = z.infer<typeof Step>;
export type InputStep = z.infer<typeof InputStep>;
export type MenuStep = z.infer<typeof MenuStep>;
export type WaitStep = z.infer<typeof WaitStep>;
export type { HandoffSettings, HandoffStep } from './schema-handoff.ts';

const Trigger = z
  .strictObject({
    bot_started: z
      .union([z.literal(true), z.strictObject({ payload: z.string().optional() })])
      .optional()
      .describe('The person pressed Start (optionally with this deep-link payload, or /regex/)'),
    command: z.string().optional().describe('A command without the slash'),
    keyword: z.string().optional().describe('Text that starts the flow: a word, or /regex/flags'),
    any_message: z.literal(true).optional(),
    fallback: z.literal(true).optional().describe('Starts the flow on what no other trigger matches'),
    event: EventName.optional().describe('An external event (bot.events.send, POST /events) starts the flow'),
    save_as: z.string().optional().describe("With event: the variable that receives the event's payload"),
  })
  .describe('One of bot_started, command, keyword, any_message, fallback or event');

export const FlowFile = z.strictObject({
  $schema: z.string().optional(),
  flow: Id.describe('The flow id: the file name without .flow.yaml'),
  title: z.string().optional(),
  version: z
    .union([z.number(), z.string()])
    .optional()
    .describe('Human version label (the content hash is the real one)'),
  start: Id.describe('The first step'),
  format: z.enum(['html', 'markdown']).optional().describe('Text format of messages (default html)'),
  group_messages: z
    .enum(['addressed', 'all'])
    .optional()
    .describe(
      'In group chats: addressed (default) = commands, mentions and replies reach the flow; all = every message (the bot needs the admin right read_all_messages)',
    ),
  i18n: z
    .strictObject({ default_locale: z.string(), locales: z.array(z.string()).optional() })
    .optional()
    .describe('Texts are message ids of flows/locales/<locale>.ftl'),
  triggers: z.array(Trigger).optional(),
  events: z
    .record(EventName, EventDeclaration)
    .optional()
    .describe('External events this flow takes: their payload schema and while_elsewhere policy'),
  commands: z
    .record(z.string().regex(/^[a-z0-9_]+$/i), Route.extend({ description: z.string().optional() }))
    .optional()
    .describe('Commands that work in every step: cancel: {goto: cancelled}'),
  defaults: z
    .strictObject({
      on_stale: StalePolicy.optional(),
      remind: common.remind.describe('Reminders for every input step that declares none'),
      idle: common.idle.describe('Idle timeout for every input step that declares none'),
      render: common.render.describe('render for every step that declares none'),
    })
    .optional(),
  texts: z
    .partialRecord(z.enum(BUILTIN_TEXT_KEYS), Text)
    .optional()
    .describe("Overrides of botflow's built-in texts (error-number, command-refused, multi-done, …)"),
  computed: z
    .record(Id, z.string().regex(/^=/, 'a computed value is an expression: "= qty * price"'))
    .optional()
    .describe(
      'Values computed from other variables each time they are read, so never stale: total: "= qty * price"',
    ),
  understand: Understand.optional().describe('Global intents: read at every step, like commands'),
  intents: IntentKeywords.optional(),
  on_error: Route.optional().describe(
    'Where to go when the flow fails at run time at a step without its own on_error (default: an apology and the end)',
  ),
  handoff: HandoffSettings.optional(),
  steps: z.record(Id, Step),
  migrate: z.array(Migration).optional(),
});
export type FlowFile = z.infer<typeof FlowFile>;

/** The format as JSON Schema (draft 2020-12), for `# yaml-language-server: $schema=…`. */
export function flowJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(FlowFile, { io: 'input', unrepresentable: 'any', reused: 'ref' }) as Record<
    string,
    unknown
  >;
  return { ...schema, title: 'botflow flow file', $id: 'https://botflow.dev/flow.schema.json' };
}
