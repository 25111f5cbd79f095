/**
 * Default service class of each operation, and how a job's class maps onto its chat's FIFOs.
 */
import { OPERATIONS, type OperationName } from '../operations.ts';
import type { ClassIndex, QueueIndex } from './chat-queues.ts';
import { PRIORITIES, type Priority } from './types.ts';

/**
 * The class a job gets when it names none: callback answers (and the long poll, so intake is never
 * stuck behind sends) first; sends and reads as replies; edits, deletes and other writes after them.
 * Mark proactive sends `bulk` explicitly.
 */
export function defaultPriority(op: OperationName): Priority {
  if (op === 'answerCallback' || op === 'answerCallbackResult' || op === 'getUpdates') return 'callback';
  if (op === 'sendMessage' || op === 'sendComment' || op === 'sendAction') return 'reply';
  return OPERATIONS[op].write ? 'edit' : 'reply';
}

export function classIndexOf(priority: Priority): ClassIndex {
  const i = PRIORITIES.indexOf(priority);
  if (i < 0) throw new TypeError(`unknown priority "${priority}": use one of ${PRIORITIES.join(', ')}`);
  return i as ClassIndex;
}

/**
 * Callback answers wait in their chat's express FIFO, replies and edits share the main FIFO (their
 * relative order is kept), bulk sends wait in the bulk FIFO and yield to the others.
 */
export function queueIndexOf(classIndex: ClassIndex): QueueIndex {
  return classIndex === 0 ? 0 : classIndex === 3 ? 2 : 1;
}
