/**
 * `botflow-engine/client`, the Bot API: the typed client, transport, errors, limits, the operation table and
 * schemas, the throttled scheduler and uploads.
 */

export { type BotflowCode, BotflowError, CATALOGUE, isBotflowError } from '../errors/index.ts';
export * from './client.ts';
export * from './errors.ts';
export * from './limits.ts';
export * from './operation-types.ts';
export * from './operations.ts';
export * from './scheduler/index.ts';
export * from './schemas/index.ts';
export { type AgentOptions, createAgent, loadExtraCas, parseRetryAfter } from './transport.ts';
export * from './upload.ts';
