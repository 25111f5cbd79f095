/**
 * Default service class of each operation, and how a job's class maps onto its chat's FIFOs. The order of
 * the classes is `PRIORITIES` (types.ts): written once, used by every stage.
 */
import { OPERATIONS, type OperationName } from '../operations.ts';
import type { ClassIndex, QueueIndex } from './chat-queues.ts';
import { PRIORITIES, type Priority } from './types.ts';

/**
 * The class a job gets when it names none: the long poll as intake (never stuck behind sends); sends as
 * replies; callback answers as callbacks; chat actions as typing; read-backs of the send-once
 * check as read-backs; edits, deletes and other writes as edits; other reads as replies. Mark proactive
 * sends `bulk` explicitly.
 */
export function defaultPriority(op: OperationName): Priority {
  if (op === 'answerCallback' || op === 'answerCallbackResult') return 'callback';
  if (op === 'sendAction') return 'typing';
  if (op === 'getMessages' || op === 'getComments') return 'readback';
  if (op === 'getUpdates') return 'intake';
  if (op === 'sendMessage' || op === 'sendComment') return 'reply';
  return OPERATIONS[op].write ? 'edit' : 'reply';
}

/** `defaultPriority` for any operation name (an unknown one is a reply). */
export function priorityOfOp(op: string): Priority {
  return Object.hasOwn(OPERATIONS, op) ? defaultPriority(op as OperationName) : 'reply';
}

/** A class's rank in the one order: 0 most urgent; an unknown name ranks after every class. */
export function priorityRank(priority: string): number {
  const i = PRIORITIES.indexOf(priority as Priority);
  return i < 0 ? PRIORITIES.length : i;
}

export function classIndexOf(priority: Priority): ClassIndex {
  const i = PRIORITIES.indexOf(priority);
  if (i < 0) throw new TypeError(`unknown priority "${priority}": use one of ${PRIORITIES.join(', ')}`);
  return i as ClassIndex;
}

/** The class index of `bulk`: classes from it on yield the budget's reserve to the ones before. */
export const BULK_CLASS = classIndexOf('bulk');

/**
 * Callback answers (and the long poll) wait in the express FIFO; replies, edits, typing and read-backs
 * share the main FIFO (their relative order in the chat is kept); bulk sends wait in the bulk FIFO and
 * yield to the others.
 */
export function queueIndexOf(classIndex: ClassIndex): QueueIndex {
  if (classIndex === classIndexOf('callback') || classIndex === classIndexOf('intake')) return 0;
  return classIndex === BULK_CLASS ? 2 : 1;
}
