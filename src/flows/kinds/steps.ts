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
