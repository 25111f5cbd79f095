/** The error catalogue: the bottom floor, which every folder of src/ may import. */
export { BotflowError, isBotflowError } from './botflow-error.ts';
export { type BotflowCode, CATALOGUE } from './catalogue.ts';
