/** The `input` step's fields: a question whose typed (or pressed) answer is read, checked and saved. */
import { z } from 'zod';
import { OnEvent } from '../../schema-events.ts';
import { Aliases, Route, Rule, Text, TimeZone } from '../../schema-parts.ts';
import { common, INPUT_KINDS, InputKind, Keyboard, Next, Understand } from '../fields.ts';

export const InputStep = z.strictObject({
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
export type InputStep = z.infer<typeof InputStep>;
