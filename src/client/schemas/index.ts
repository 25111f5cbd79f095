export * from './attachments.ts';
export * from './common.ts';
export * from './decode.ts';
export * from './keyboard.ts';
export * from './messages.ts';
export * from './objects.ts';
export * from './updates.ts';
