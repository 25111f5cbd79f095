// `npm run bench -- flows`: loading and compiling the example flows; botflow's pure step (the XState
// transition plus what botflow adds: collecting the actions as planned calls, signing buttons, timers)
// through the compiled sign-up wizard, next to XState's transition alone and a bare XState machine; the
// size of a stored snapshot. Figures for people, then one JSON line.
import { performance } from 'node:perf_hooks';
import { assign, initialTransition, setup, transition } from 'xstate';
import { ButtonSigner } from '../../src/engine/step/buttons.ts';
import type { FlowEvent } from '../../src/engine/step/contract.ts';
import { type StepResult, step } from '../../src/engine/step/step.ts';
import { loadFlows } from '../../src/flows/load.ts';

const meta = { conversation: 'bench', chatId: 1, userId: 1, now: 0 };
const message = (text: string) =>
  ({
    type: 'message',
    text,
    attachments: [],
    message: { body: { mid: 'm', seq: 1, text } },
    meta,
  }) as unknown as FlowEvent;

/** CPU (user + system, all threads) since `from`, in µs. */
function cpuMicros(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return used.user + used.system;
}

const loadRuns = 20;
let t = performance.now();
let loaded = await loadFlows('flows');
for (let i = 1; i < loadRuns; i++) loaded = await loadFlows('flows');
const loadMs = (performance.now() - t) / loadRuns;
const signup = loaded.flows.find((f) => f.id === 'signup')!;

// One conversation = start + 5 events (name, bad age, age, email, confirm press).
const conversations = 5_000;
// Warm-up, so that the first row does not pay for the JIT.
for (let i = 0; i < 1_000; i++) {
  let [s] = initialTransition(signup.machine, { trigger: { kind: 'bot_started' }, meta });
  for (const e of [message('Ann'), message('abc'), message('30')]) [s] = transition(signup.machine, s, e);
}
t = performance.now();
let cpu = process.cpuUsage();
let events = 0;
let snapshotBytes = 0;
for (let i = 0; i < conversations; i++) {
  let [s] = initialTransition(signup.machine, { trigger: { kind: 'bot_started' }, meta });
  for (const e of [message('Ann'), message('abc'), message('30'), message('ann@example.org')]) {
    [s] = transition(signup.machine, s, e);
    events++;
  }
  if (i === 0) snapshotBytes = JSON.stringify(signup.machine.getPersistedSnapshot(s)).length;
  [s] = transition(signup.machine, s, { type: 'button', button: 'ok', callbackId: 'c', meta } as FlowEvent);
  events += 2;
}
const transitionUs = ((performance.now() - t) * 1000) / events;
const transitionCpuUs = cpuMicros(cpu) / events;

// botflow's step, as the engine runs it: each event on the previous step's machine snapshot.
const signer = new ButtonSigner('a-bench-secret-of-enough-length');
const stepOptions = { conversationKey: 'bench', sign: (i: number, p: string) => signer.sign('bench', i, p) };
t = performance.now();
cpu = process.cpuUsage();
let stepEvents = 0;
for (let i = 0; i < conversations; i++) {
  let r: StepResult = step(
    signup,
    { revision: 0, stepInstance: 0 },
    { type: 'start', input: { trigger: { kind: 'bot_started' }, meta } },
    stepOptions,
  );
  stepEvents++;
  const press = { type: 'button', button: 'ok', callbackId: 'c', meta } as FlowEvent;
  for (const e of [message('Ann'), message('abc'), message('30'), message('ann@example.org'), press]) {
    r = step(
      signup,
      {
        snapshot: r.snapshot,
        machineSnapshot: r.machineSnapshot,
        revision: r.revision,
        stepInstance: r.stepInstance,
      },
      { type: 'event', event: e },
      stepOptions,
    );
    stepEvents++;
  }
}
const stepUs = ((performance.now() - t) * 1000) / stepEvents;
const stepCpuUs = cpuMicros(cpu) / stepEvents;

// Baseline: a bare XState machine (10 states, one guarded transition each) driven the same way.
const bare: Record<string, unknown> = {};
for (let i = 0; i < 10; i++) {
  bare[`s${i}`] = {
    entry: [{ type: 'count' }],
    on: { message: [{ guard: { type: 'yes' }, target: `s${(i + 1) % 10}` }] },
  };
}
const bareMachine = setup({
  types: {} as { context: { n: number } },
  actions: { count: assign(({ context }) => ({ n: context.n + 1 })) },
  guards: { yes: () => true },
}).createMachine({ context: { n: 0 }, initial: 's0', states: bare as never });
t = performance.now();
let bareEvents = 0;
for (let i = 0; i < conversations; i++) {
  let [s] = initialTransition(bareMachine);
  for (let j = 0; j < 6; j++) {
    [s] = transition(bareMachine, s, { type: 'message' });
    bareEvents++;
  }
}
const bareUs = ((performance.now() - t) * 1000) / bareEvents;

console.log(`load + check + compile of ${loaded.flows.length} example flows: ${loadMs.toFixed(1)} ms`);
console.log(
  `botflow's pure step through the sign-up wizard: ${stepUs.toFixed(1)} µs per event, CPU ${stepCpuUs.toFixed(1)} µs (${stepEvents} events)`,
);
console.log(
  `XState's transition alone, same wizard: ${transitionUs.toFixed(1)} µs per event, CPU ${transitionCpuUs.toFixed(1)} µs (${events} events)`,
);
console.log(`the same driving of a bare 10-state XState machine: ${bareUs.toFixed(1)} µs per event`);
console.log(`stored snapshot at the confirmation step: ${snapshotBytes} bytes`);
console.log(
  JSON.stringify({
    bench: 'flows',
    loadMs: +loadMs.toFixed(2),
    stepUs: +stepUs.toFixed(2),
    stepCpuUs: +stepCpuUs.toFixed(2),
    transitionUs: +transitionUs.toFixed(2),
    transitionCpuUs: +transitionCpuUs.toFixed(2),
    bareXstateUs: +bareUs.toFixed(2),
    snapshotBytes,
  }),
);
