/**
 * A playground for developing the web chat page without the runtime: the sandbox with the page and the
 * inspector, plus (when `--engine` is given and the engine exists) the engine running ./flows.
 *
 *   node --import tsx test/browser/dev-server.ts [--port 8080]
 *
 * Prints the address to open. Ctrl-C stops it.
 */
import { Inspector } from '../../src/runtime/inspector.ts';
import { startSandbox } from '../../src/sandbox/start.ts';
import { webChat } from '../../src/sandbox/web/index.ts';

const portArg = process.argv.indexOf('--port');
const port = portArg > 0 ? Number(process.argv[portArg + 1]) : 0;
const inspector = new Inspector();
const sandbox = await startSandbox({ port, limits: false, plugins: [webChat, inspector.plugin] });
process.stdout.write(`web chat: ${sandbox.baseUrl}/\ntoken: ${sandbox.token}\n`);
await new Promise<void>((resolve) => {
  process.once('SIGINT', resolve);
  process.once('SIGTERM', resolve);
});
await sandbox.close();
