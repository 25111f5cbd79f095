/**
 * The web chat playground, served by the sandbox. `webChat` is the plugin with default options (the page
 * at `WEB_CHAT_PATH`); pass `webChatPlugin(options)` to `startSandbox({ plugins })` for others.
 */
import { webChatPlugin } from './plugin.ts';

export { WEB_ASSETS_PATH, type WebChatOptions, webChatPlugin } from './plugin.ts';

/** Where the page is served by default. */
export const WEB_CHAT_PATH = '/';

/** The playground plugin with its defaults. */
export const webChat = webChatPlugin({ path: WEB_CHAT_PATH });
