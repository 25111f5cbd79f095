/**
 * Every kind of problem `botflow check` reports, by its stable code, with what it means (docs/problems.md
 * lists them; a test keeps the two equal). A code names a kind of problem, never one wording: it stays the
 * same across releases, so editors, CI filters and quick fixes can rely on it.
 */
export const PROBLEM_CODES = {
  // The file and its format
  'yaml-syntax': 'the file is not valid YAML (indentation, quotes, colons, a key written twice)',
  'yaml-anchor': 'an anchor (`&name`): flow files write every value out in full',
  'yaml-alias': 'an alias (`*name`): flow files write every value out in full',
  'unknown-key': 'a key the format does not have at this place (often a typo)',
  'misplaced-key': 'a key indented under the key above it, one level too deep',
  'missing-key': 'a required key is missing',
  'wrong-type': 'a value of the wrong kind (a text where a list is expected, …)',
  'bad-value': 'a value that is not one of the values allowed here',
  'unknown-step-type': 'a step without a type, or with a type that is no built-in or project kind of step',
  schema: 'any other mismatch with the format of the file',
  'flow-id-mismatch': 'the flow id differs from the file name',
  'not-a-flow-file':
    'a YAML file in the flows folder that is not read, as its name does not end in .flow.yaml',
  // Steps and the ways between them
  'unknown-step': 'a goto, next, start or other reference to a step names no step of the flow',
  'unknown-flow': 'a call (or a campaign) names no flow of the project',
  'recursive-call': 'calling a flow leads back to the calling flow',
  'unreachable-step': 'no path from the start leads to the step',
  'dead-end': 'a step with no way out',
  'menu-without-callback': 'a menu without a callback button: nobody can leave it',
  'next-without-fallback':
    'the last entry of a next list has a condition, so when none holds nothing happens',
  'no-exhausted-path': 'an input without a path for when its retries are exhausted',
  'call-returns-nothing': 'a call saves the result of a flow that returns nothing',
  'handoff-no-operators': "a handoff step in a flow that names no operators' chat",
  'come-back-without-goto': 'come_back without the goto of the step to edit',
  'bad-condition': 'a condition that is not well formed (no comparison, or comparisons without a var)',
  'bad-regex': 'a regular expression that is not valid, or could backtrack catastrophically',
  'bad-expression': 'an expression that does not parse or names what does not exist',
  'bad-trigger': 'a trigger that is not well formed (several kinds in one entry, save_as without an event)',
  'trigger-clash': 'two flows start on the same trigger',
  'computed-cycle': 'computed values that read each other in a circle',
  'bad-migration': 'a migration that sets something else than constants',
  // Inputs, options and buttons
  'choice-without-options': 'a choice input without options',
  'options-unused': 'options on an input that is not a choice',
  'options-and-options-from': 'a step with both options and options_from',
  'options-from-not-choice': 'options_from on an input that is not a choice',
  'options-from-no-text': 'options_from without text in a translated flow',
  'no-empty-path': 'options_from without an empty path: an empty list would leave the person without buttons',
  'bad-options-value': 'options_from.value names neither the element (item) nor a field of it',
  'not-a-list': 'options_from.list names a variable that is not a list',
  'rule-never-passes': 'a validation rule no answer of this input can pass',
  'incomplete-rule': 'a validation rule without what it needs (min or max, a pattern)',
  'unknown-time-zone': 'a time zone that is not an IANA zone',
  'intents-never-read': 'an input that takes any text, so its own intents are never read',
  'ambiguous-options': 'two options that cannot be told apart when typed',
  'aliases-never-read': 'aliases of a button that typed answers never reach',
  'button-kind': 'a button with no kind (id, url, request, …) or with several',
  'button-field-unused':
    'a button field this kind of button never uses (value, quick, a route of a button that reports no press)',
  'duplicate-button-id': 'two buttons of a step have the same id',
  'open-app-no-bot': 'an open_app button that names no bot',
  'stale-buttons': 'callback buttons on a message step, which moves on at once',
  'render-edit-after-typed':
    'render: edit on a step that a typed answer leads to, where it sends a new message instead',
  'several-media': 'a step sends more than one media file',
  'missing-file': 'a media file that does not exist',
  // Texts and catalogs
  'unknown-message': 'a message id that a locale catalog does not have',
  'not-a-message-id': 'a literal text in a flow that uses i18n, where a message id is expected',
  'missing-catalog': 'a locale of the flow without its catalog (locales/<locale>.ftl)',
  'broken-fluent-entry': 'an entry of a .ftl catalog that Fluent cannot read',
  'no-builtin-texts': 'a locale botflow has no built-in texts for, and the flow gives none',
  'stray-html': 'a text with something that reads as an HTML tag, which the platform removes',
  'text-limit': "a text or button label beyond the platform's limits",
  'keyboard-limit': "a keyboard beyond the platform's limits (rows, buttons, payload length)",
  // Variables
  'unknown-variable': 'a variable that no step saves or sets',
  'unknown-field': 'a field of a variable that its value does not have',
  'unset-variable': 'a variable read on a path where it is not set yet',
  'unchecked-task-result': "a task's result without a schema, so the fields read from it are not checked",
  // The registry: tasks, validators, guards, effects, events, intents
  registry: 'the registry (registry.ts) did not load, or is not made by defineRegistry()',
  'unknown-task': 'a task the registry does not have',
  'unknown-task-input': "an input field the task's schema does not have",
  'missing-task-input': 'a required input field of the task that the flow does not give',
  'task-input-type': "an input field whose value does not fit the task's schema",
  'task-outside-message': 'a task in a step that is not a message step',
  'no-on-error': 'a task without on_error',
  'several-tasks': 'a step that starts more than one task',
  'unknown-validator': 'a validator the registry does not have',
  'unknown-guard': 'a guard the registry does not have',
  'unknown-effect': 'an effect the registry does not have',
  'unknown-event': 'an event that no flow and not the registry declares',
  'unused-event': 'an event that is declared, but that no step takes and no flow starts on',
  'bad-event-payload': "an event's payload schema that is not valid",
  'unknown-intent': 'an intent without keywords for the keyword classifier',
  'unknown-classifier': 'a classifier that is no registered task',
  'global-classifier': 'global intents with a classifier of their own',
  'undeclared-slots': 'a classifier that declares no slots for an intent whose slots are saved',
  // Campaign files
  'not-a-campaign-file':
    'a YAML file in the campaigns folder that is not read, as its name does not end in .campaign.yaml',
  'unknown-tag': 'a campaign segment names a tag that no flow sets',
  'unused-variable': 'a campaign passes a variable (with:) that its flow never reads',
  'zero-rate': 'a campaign rate that sends nothing',
  'fast-rate': 'a campaign rate above what campaigns ever send',
  'empty-quiet-hours': 'quiet hours that start and end at the same time, so nobody is ever held',
  'unused-setting':
    'a campaign setting that is only used with another one that is missing (time_zone without quiet_hours)',
  // Transcripts and the tools
  transcript: 'a transcript (*.test.yaml) that does not fit the format of transcripts',
  'unknown-button': 'a transcript presses a button that no step of its flow (or of a flow it calls) offers',
  'no-such-path': 'a file or folder given to check or test does not exist',
  'reload-failed': 'the flows could not be reloaded (botflow run --watch, the playground)',
} as const;

/** A stable code of a kind of problem (see PROBLEM_CODES). */
export type ProblemCode = keyof typeof PROBLEM_CODES;
