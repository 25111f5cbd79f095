/** `botflow-engine/flows`. Flow files: the format, loading and checking, compiling to the engine's FlowDefinition, drawing. */
export { buildDefinition, type CompileContext } from './compile.ts';
export { FLOW_SOURCE_KIND, type StoredFlowSource } from './flow-source.ts';
export {
  defineStepKind,
  type KindAnswer,
  type KindButton,
  type KindEvent,
  type KindScope,
  type KindView,
  type ProjectStepKind,
  type StepKindSpec,
} from './kinds/custom.ts';
export {
  checkFlows,
  compileFlow,
  compileSources,
  FLOW_SUFFIX,
  type FlowSource,
  type LoadOptions,
  type LoadResult,
  loadFlows,
  loadLocales,
  loadRegistry,
} from './load.ts';
export { flowToMermaid } from './mermaid.ts';
export { PROBLEM_CODES, type ProblemCode } from './problem-codes.ts';
export { formatProblem, hasErrors, type Problem, type ProblemFix, type TextEdit } from './problems.ts';
export { FlowRebuildError, type RebuildOptions, rebuildFlow } from './rebuild.ts';
export {
  ClassifierInput,
  ClassifierResult,
  type ClassifierSlots,
  type ClassifierSpec,
  defineClassifier,
  defineRegistry,
  defineTask,
  type EffectFactory,
  type FlowScope,
  type Guard,
  type Registry,
  type TaskContext,
  type TaskDefinition,
  TaskError,
  type TaskSpec,
  type Validator,
} from './registry.ts';
export { type FlowFile, flowJsonSchema } from './schema.ts';
export { type Catalog, loadCatalog } from './texts.ts';
export { canonicalJson, flowVersion } from './versions.ts';
export { type FlowWatcher, watchFlows } from './watch.ts';
