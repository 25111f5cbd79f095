/**
 * The `input` step in a skeleton transcript: the answers that take its ways out. An answer it accepts, one
 * it refuses, the last refused one (when retries run out); the kinds it reads (other than text) are named.
 */
import { kindsOf } from '../../inputs.ts';
import type { InputStep } from './schema.ts';

export function skeleton(step: InputStep, way: string, at: string): string | undefined {
  const kinds = kindsOf(step).filter((k) => k !== 'text');
  const reads = kinds.length ? ` (${kinds.join(' or ')})` : '';
  if (way === 'accept') return `say: "TODO an answer ${at} accepts${reads}"`;
  if (way === 'invalid answer') return `say: "TODO an answer ${at} refuses${reads}"`;
  if (way === 'retries exhausted') return `say: "TODO the last refused answer at ${at}"`;
  return undefined;
}
