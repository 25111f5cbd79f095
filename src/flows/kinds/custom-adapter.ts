/**
 * A project's kind (custom.ts) as the internal contract (contract.ts): its schema (the kind's fields, a
 * step id per exit, and what every step may have), its walk (texts, ways out), its data-flow edges (the
 * variables it sets on each way out) and one generic XState state whose named guards and actions
 * (custom-actions.ts) call the kind's pure handlers.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { RERENDER_EVENT } from '../actions.ts';
import type { Builder } from '../graph-builder.ts';
import type { Registry } from '../registry.ts';
import { Duration, EffectCall, Id } from '../schema-parts.ts';
import { act, guard, type StepState } from '../state-parts.ts';
import { TagCall } from '../tags.ts';
import { typeOfZod } from '../var-types.ts';
import type { Walker } from '../walker.ts';
import type { RunKit, StepFields, StepKind, StepReads } from './contract.ts';
import { isProjectStepKind, type ProjectStepKind, type StepKindSpec } from './custom.ts';
import { kindParts } from './custom-actions.ts';
import { attachedKind } from './custom-attach.ts';
import { common } from './fields.ts';

/** A project's kind adapted to the contract, with its declaration (the run-time actions call its handlers). */
export interface AdaptedKind extends StepKind {
  readonly spec: StepKindSpec;
}

type Fields = StepFields & Record<string, unknown>;

/** What every step of a project's kind may have besides its own fields (drawing is the kind's own). */
const everyStep = {
  set: common.set,
  do: z
    .array(z.union([EffectCall, TagCall]))
    .optional()
    .describe('Registered effects and tags run when the step is entered (tasks: in a message step)'),
  tag: common.tag,
  untag: common.untag,
  remind: common.remind,
  idle: common.idle,
  on_error: common.on_error,
};

/** The step's fields as the kind's handlers see them (its own fields, not the exits or the common ones). */
const ownFields = (step: Fields) => step as never;

function schemaOf(spec: StepKindSpec) {
  const exits = Object.entries(spec.exits as Record<string, string>).map(([name, what]) => [
    name,
    Id.describe(what),
  ]);
  return z
    .strictObject({
      type: z.literal(spec.type),
      ...everyStep,
      ...spec.fields.shape,
      ...Object.fromEntries(exits),
      ...(spec.onTimeout
        ? {
            timeout: Duration.optional().describe(
              'When the person stays silent this long, the step answers its timeout',
            ),
          }
        : {}),
    })
    .describe(spec.summary);
}

/** The variables the step sets on its ways out, from the kind's `sets` (a broken one sets nothing known). */
function setsOf(spec: StepKindSpec, step: Fields): Readonly<Record<string, z.ZodType>> {
  try {
    return spec.sets?.(ownFields(step)) ?? {};
  } catch {
    return {};
  }
}

function adapt(spec: StepKindSpec): AdaptedKind {
  const exits = Object.keys(spec.exits);
  const walk = (step: Fields, w: Walker, id: string) => {
    for (const t of spec.texts ?? []) w.text(['steps', id, t], step[t] as string | undefined);
    for (const x of exits)
      w.refs.push({ path: ['steps', id, x], from: id, to: step[x] as string, label: x === 'next' ? '' : x });
  };
  const graph = (step: Fields, g: Builder, id: string) => {
    g.waiting.push(id);
    const sets = setsOf(spec, step);
    for (const [name, type] of Object.entries(sets))
      g.assign(name, typeOfZod(type, `the ${spec.type} step ${id}`));
    for (const x of exits) g.edge(id, step[x] as string, x === 'next' ? '' : x, Object.keys(sets));
  };
  const state = (step: Fields, { s, enter, waiting }: StepState) => {
    const { leave, on, add } = waiting();
    const answers = [
      ...exits.map((x) => ({
        guard: guard('kindGoes', { ...s, exit: x }),
        target: step[x] as string,
        actions: [act('kindGo', { ...s, exit: x })],
      })),
      { guard: guard('kindRefuses', s), actions: [act('kindRefuse', s)] },
    ];
    const takes = [
      ...(spec.onMessage ? ['message'] : []),
      ...(spec.onPress ? ['button'] : []),
      ...(spec.onEvent ? ['event'] : []),
      ...(spec.onTimeout && step.timeout ? ['timer'] : []),
    ];
    for (const event of takes) for (const t of answers) add(event, t);
    // Typed text the kind does not take draws the step again; so does the engine's redraw.
    add('message', { actions: [act('unrecognisedText', s), act('kindShow', { ...s, fresh: true })] });
    on[RERENDER_EVENT] = [{ actions: [act('kindShow', s)] }];
    const timed = spec.onTimeout && step.timeout;
    return {
      entry: [...enter, act('kindShow', s), ...(timed ? [act('kindArm', s)] : [])],
      exit: [...leave, ...(timed ? [act('kindDisarm', s)] : [])],
      on,
    };
  };
  const reads = (step: Fields, r: StepReads) => {
    let names: readonly string[];
    try {
      names = spec.reads?.(ownFields(step)) ?? [];
    } catch {
      names = [];
    }
    for (const name of names) r.variable(['steps', r.id, 'type'], name);
  };
  return {
    type: spec.type,
    summary: spec.summary,
    reads: reads as StepKind['reads'],
    schema: schemaOf(spec) as unknown as z.ZodType<StepFields>,
    understands: false,
    walk: walk as StepKind['walk'],
    graph: graph as StepKind['graph'],
    state: state as StepKind['state'],
    // Its named actions and guards (kindShow, kindGo, kindGoes…), as a built-in kind adds its own.
    parts: (k: RunKit) => kindParts(k),
    spec,
  };
}

const adapted = new WeakMap<object, AdaptedKind>();

/** A project's kind as the contract (made once per declaration). */
export function adaptKind(spec: ProjectStepKind): AdaptedKind {
  let kind = adapted.get(spec);
  if (!kind) {
    kind = adapt(spec);
    adapted.set(spec, kind);
  }
  return kind;
}

const byRegistry = new WeakMap<object, readonly AdaptedKind[]>();

/** The kinds a project's registry declares (`defineRegistry({ kinds })`), adapted; none for most projects. */
export function projectKinds(registry: Pick<Registry, 'kinds'> | undefined): readonly AdaptedKind[] {
  const list = registry?.kinds;
  if (!list?.length) return [];
  const known = byRegistry.get(list);
  if (known) return known;
  const kinds = list.filter(isProjectStepKind).map(adaptKind);
  byRegistry.set(list, kinds);
  return kinds;
}

/** The project kinds the steps of `flows` use. */
export function kindsUsed(flows: readonly { steps: Readonly<Record<string, object>> }[]): AdaptedKind[] {
  return flows.flatMap((f) =>
    Object.values(f.steps).flatMap((s) => {
      const k = attachedKind<AdaptedKind>(s);
      return k ? [k] : [];
    }),
  );
}

/**
 * `<label>-<hash>` with the versions of the project kinds the flow (and the flows it calls) uses folded into
 * the hash: a kind whose `version` changed makes a new flow version (`botflow flows plan` shows the
 * conversations on the old one, and a pinned version is never rebuilt with the new code). Unchanged when no
 * project kind is used, so flows without one keep their versions.
 */
export function versionWithKinds(version: string, used: readonly AdaptedKind[]): string {
  if (!used.length) return version;
  const names = [...new Set(used.map((k) => `${k.type}@${String(k.spec.version ?? 0)}`))].sort();
  const dash = version.lastIndexOf('-');
  const label = dash >= 0 ? version.slice(0, dash + 1) : '';
  const hash = version.slice(dash + 1);
  const folded = createHash('sha256')
    .update(`${hash} ${names.join(' ')}`)
    .digest('hex')
    .slice(0, 16);
  return `${label}${folded}`;
}
