/**
 * The flow file format, written once in zod: the loader validates with it and `botflow schema` exports
 * it as JSON Schema for editors. Every object is strict, so a misspelt key is an error, never ignored.
 */
import { z } from 'zod';
import { BUILTIN_TEXT_KEYS } from './builtin-texts.ts';
import { common, StalePolicy, Understand } from './kinds/fields.ts';
import { type BuiltinStep, STEP_SCHEMAS } from './kinds/registry.ts';
import { EventDeclaration, EventName } from './schema-events.ts';
import { HandoffSettings } from './schema-handoff.ts';
import { IntentKeywords } from './schema-intents.ts';
import { Id, Migration, Route, Text } from './schema-parts.ts';

export {
  Button,
  InputKind,
  StalePolicy,
  TaskCall,
  Understand,
} from './kinds/fields.ts';
export type { HandoffStep } from './kinds/handoff/schema.ts';
export type { InputStep } from './kinds/input/schema.ts';
export type { MenuStep } from './kinds/menu/schema.ts';
export type { WaitStep } from './kinds/wait/schema.ts';
export { EventRoute } from './schema-events.ts';
export type { HandoffSettings } from './schema-handoff.ts';
export { Condition, Migration, Route, Rule } from './schema-parts.ts';

/** The kinds' schemas joined, told apart by `type`: what they read is a step of one of them. */
const unionOf = (schemas: readonly z.ZodType[]) =>
  z.discriminatedUnion(
    'type',
    schemas as unknown as Parameters<typeof z.discriminatedUnion>[1],
  ) as unknown as z.ZodType<BuiltinStep>;

/**
 * A step of a flow file: one of the built-in kinds' schemas (registry.ts's list, in its order). Its type is
 * the registry's `BuiltinStep` (the same union as kinds/steps.ts's `Step`), so this file's declarations
 * import the registry, whose declaration merging fills kinds/steps.ts in for a package's users too.
 */
export const Step = unionOf(STEP_SCHEMAS);
export type Step = BuiltinStep;

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

/** (Named apart: inside the block below, `FlowFile` is kinds/steps.ts's.) */
type TheFlowFile = FlowFile;

declare module './kinds/steps.ts' {
  /** The flow file format, for the modules below the kinds (kinds/steps.ts). */
  interface FlowFormat {
    readonly file: TheFlowFile;
  }
}

/** A kind of step as the format sees it (kinds/contract.ts's StepKind has these): its type and fields. */
export interface StepSchemaKind {
  readonly type: string;
  readonly schema: z.ZodType;
}

const withKinds = new WeakMap<readonly StepSchemaKind[], typeof FlowFile>();

/**
 * The format with a project's own kinds of step (defineStepKind) beside the built-in ones: what the loader
 * validates a project's flow files with. The built-in format when there are none.
 */
export function flowFileSchema(kinds: readonly StepSchemaKind[] = []): typeof FlowFile {
  if (!kinds.length) return FlowFile;
  let schema = withKinds.get(kinds);
  if (!schema) {
    const steps = [...STEP_SCHEMAS, ...kinds.map((k) => k.schema)];
    schema = FlowFile.extend({ steps: z.record(Id, unionOf(steps)) });
    withKinds.set(kinds, schema);
  }
  return schema;
}

/**
 * The format as JSON Schema (draft 2020-12), for `# yaml-language-server: $schema=…`: with a project's
 * own kinds when given (`botflow schema` reads them from the registry).
 */
export function flowJsonSchema(kinds: readonly StepSchemaKind[] = []): Record<string, unknown> {
  const schema = z.toJSONSchema(flowFileSchema(kinds), {
    io: 'input',
    unrepresentable: 'any',
    reused: 'ref',
  }) as Record<string, unknown>;
  return { ...schema, title: 'botflow flow file', $id: 'https://botflow.dev/flow.schema.json' };
}
