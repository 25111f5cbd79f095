/** The Bot API: typed client, transport, errors, limits, operation table and schemas. */
export * from './client.ts';
export * from './errors.ts';
export * from './limits.ts';
export * from './operation-types.ts';
export * from './operations.ts';
export * from './schemas/index.ts';
export { type AgentOptions, createAgent, loadExtraCas, parseRetryAfter } from './transport.ts';
