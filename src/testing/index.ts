/**
 * `botflow-engine/testing`: prove that dialogs work and keep working.
 * - Transcripts (`*.test.yaml`): `loadTranscripts`, `runTranscript`; `transcriptTests` for vitest is in
 *   `botflow-engine/testing/vitest` (only that subpath needs vitest).
 * - The harness they run in: `Harness` (engine + in-process sandbox + temp SQLite on a virtual clock).
 * - Coverage: `CoverageRecorder`, `coverageReport`, `formatCoverage`, `skeletons`.
 * - Record and replay: `createRecorder` (for `botflow run --record`), `readRecording`, `replay`.
 */

export {
  createRecorder,
  DEFAULT_REDACTED_FIELDS,
  type Recorder,
  type RecorderOptions,
  Redactor,
} from '../runtime/recorder.ts';
export {
  type CallRecord,
  type Recording,
  RecordingError,
  readRecording,
  type UpdateRecord,
} from '../runtime/recording.ts';
export { coverageReport, type FlowCoverage, formatCoverage, skeletons } from './coverage.ts';
export { type FlowEdge, type FlowGraph, flowGraph } from './coverage-graph.ts';
export { CoverageRecorder } from './coverage-recorder.ts';
export { loadFlowsOrThrow } from './flows.ts';
export {
  type BotCall,
  HARNESS_EPOCH,
  Harness,
  HarnessError,
  type HarnessOptions,
  type HarnessPerson,
  type TurnOutcome,
} from './harness.ts';
export {
  expandPaths,
  findTranscriptFiles,
  type LoadedTranscripts,
  loadTranscripts,
  parseTranscripts,
  TRANSCRIPT_SUFFIX,
} from './load.ts';
export { textMatches } from './match.ts';
export { recordingFromDatabase } from './recording-from-db.ts';
export { type ReplayOptions, type ReplayResult, replay } from './replay.ts';
export type { ConversationDiff } from './replay-diff.ts';
export { type RunOptions, runTranscript, type TranscriptResult } from './run.ts';
export type {
  BotExpectation,
  MessageExpectation,
  PersonAction,
  StartAt,
  Transcript,
  Turn,
} from './transcript.ts';
