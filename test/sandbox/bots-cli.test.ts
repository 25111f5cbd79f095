/** `botflow sandbox --bots A,B`: one JSON line per bot, each token answering /me with its own bot. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { BotApi } from '../../src/client/client.ts';
import { SandboxControl } from '../../src/sandbox/index.ts';

it('`botflow sandbox --bots Shop,Weather` prints a line per bot, the default bot first', async () => {
  const child = spawn(
    process.execPath,
    ['bin/botflow.js', 'sandbox', '--bots', 'Shop,Weather', '--token', 'cli-shop-token', '--no-limits'],
    { cwd: join(import.meta.dirname, '../..'), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
    const lines = await new Promise<string[]>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const done = out.split('\n').slice(0, -1);
        if (done.length >= 2) resolve(done);
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
    });
    const [shop, weather] = lines.map(
      (l) =>
        JSON.parse(l) as {
          baseUrl: string;
          token: string;
          bot: { id: number; name: string; username: string };
        },
    );
    expect(shop).toMatchObject({ token: 'cli-shop-token', bot: { name: 'Shop', username: 'shop_bot' } });
    expect(weather).toMatchObject({ bot: { name: 'Weather', username: 'weather_bot' } });
    expect(weather!.token).toMatch(/^sandbox-token-/);
    for (const line of [shop!, weather!]) {
      const api = new BotApi({ token: line.token, baseUrl: line.baseUrl });
      expect((await api.getMyInfo()).user_id).toBe(line.bot.id);
      await api.close();
    }
    const control = new SandboxControl(shop!.baseUrl);
    expect((await control.bots()).map((b) => b.name)).toEqual(['Shop', 'Weather']);
    await control.close();
  } finally {
    child.kill('SIGTERM');
  }
}, 30_000);
