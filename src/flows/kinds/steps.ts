/**
 * A step of a flow file: one of the built-in kinds' schemas, told apart by `type`. Each kind's folder holds
 * its schema (`<kind>/schema.ts`) and the rest of it (`<kind>/index.ts`, listed in registry.ts); the
 * registry's test checks that both lists name the same kinds in the same order.
 */
import { z } from 'zod';
import { BranchStep } from './branch/schema.ts';
import { CallStep } from './call/schema.ts';
import { EndStep } from './end/schema.ts';
import { HandoffStep } from './handoff/schema.ts';
import { InputStep } from './input/schema.ts';
import { MenuStep } from './menu/schema.ts';
import { MessageStep } from './message/schema.ts';
import { WaitStep } from './wait/schema.ts';

export const STEP_SCHEMAS = [
  MessageStep,
  InputStep,
  MenuStep,
  WaitStep,
  BranchStep,
  CallStep,
  EndStep,
  HandoffStep,
] as const;

export const Step = z.discriminatedUnion('type', STEP_SCHEMAS);
export type Step = z.infer<typeof Step>;

// k-analysis (issue 37): what `botflow check` puts in place of a step that breaks the schema (salvage.ts),
// so the other checks still run on the rest: an end, the kind that needs no field. (Here rather than in
// registry.ts: salvage.ts sits below the kinds' modules, as yaml-source.ts reads it.)
/** The stand-in for a broken step. */
export const stubStep = (): Step => ({ type: 'end' });
/** Whether a step (as parsed, maybe broken) is already the stand-in. */
export const isStub = (step: { type?: unknown }): boolean => step.type === stubStep().type;
