/**
 * The fields that several kinds of step share, written once in zod: a task call, buttons and keyboards,
 * media, `next`, `on_error`, the common fields of a step that speaks (`say`, `set`, `do`, reminders, idle…)
 * and the kinds of typed answer. Each kind's module (kinds/<kind>.ts) builds its schema from these.
 */
import { z } from 'zod';
import { understandSchema } from '../schema-intents.ts';
import {
  Aliases,
  Condition,
  Duration,
  EffectCall,
  Id,
  Route,
  RouteShape,
  Text,
  Vars,
} from '../schema-parts.ts';
import { TagCall, TagList } from '../tags.ts';

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
export const StepDo = z
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

export const Keyboard = z.array(z.array(Button)).describe('Rows of buttons');
export const Media = z
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
export const RouteSet = Vars.describe(
  'Variables set when this route is taken (after the answer is saved); "= expr" computes one',
);
export const Next = z.union([
  Id,
  z.array(z.strictObject({ when: Condition.optional(), goto: Id, set: RouteSet.optional() })).min(1),
]);
/** Where the conversation goes when the flow itself fails at a step (an expression, a text, a guard). */
export const OnError = Route.describe(
  "Where to go when the flow fails here at run time (an expression, a text or a guard): say, set, goto. Default: the flow's on_error, else an apology and the end",
);

export const common = {
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

export const INPUT_KINDS = [
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
