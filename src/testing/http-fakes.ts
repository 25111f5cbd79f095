/**
 * A transcript's `http:` block: the outside world of real tasks, faked at the HTTP level with undici's
 * MockAgent, installed as the global dispatcher (which `fetch` uses) while the transcript runs. Connections
 * to the network are refused, so a request nobody faked fails the task and is named in the report.
 */
import { type Dispatcher, getGlobalDispatcher, MockAgent, setGlobalDispatcher } from 'undici';
import { fail, isObj, keysOf, type Path } from './parse-helpers.ts';
import type { HttpFake } from './transcript.ts';

const EXAMPLE =
  'e.g. http: [{ method: GET, url: "https://menu.example/api/menu", reply: { status: 200, body: ["pizza"] } }]';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** Reads the `http:` block. */
export function httpFakesOf(v: unknown): HttpFake[] {
  if (!Array.isArray(v) || v.length === 0) fail(['http'], 'http is a list of faked requests', EXAMPLE);
  return v.map((item, i) => fakeOf(item, ['http', i]));
}

function fakeOf(item: unknown, at: Path): HttpFake {
  if (!isObj(item)) fail(at, 'a faked request is { method, url, reply: { status, body }, times }', EXAMPLE);
  keysOf(item, at, ['method', 'url', 'reply', 'times']);
  const method = String(item.method ?? 'GET').toUpperCase();
  if (!METHODS.includes(method)) fail([...at, 'method'], `method is one of ${METHODS.join(', ')}`);
  let url: URL;
  try {
    url = new URL(String(item.url));
  } catch {
    fail([...at, 'url'], 'url is an absolute address', 'e.g. url: "https://menu.example/api/menu"');
  }
  const reply = item.reply ?? {};
  if (!isObj(reply)) fail([...at, 'reply'], 'reply is { status, body, headers }', EXAMPLE);
  keysOf(reply, [...at, 'reply'], ['status', 'body', 'headers']);
  const status = reply.status ?? 200;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599)
    fail([...at, 'reply', 'status'], 'status is an HTTP status, e.g. 200 or 503');
  if (reply.headers !== undefined && !isObj(reply.headers))
    fail([...at, 'reply', 'headers'], 'headers map names to texts');
  if (item.times !== undefined && (!Number.isInteger(item.times) || (item.times as number) < 1))
    fail([...at, 'times'], 'times is a whole number of requests, 1 or more');
  return {
    method,
    url: `${url.origin}${url.pathname}${url.search}`,
    status,
    ...('body' in reply ? { body: reply.body } : {}),
    ...(reply.headers ? { headers: reply.headers as Record<string, string> } : {}),
    ...(item.times !== undefined ? { times: item.times as number } : {}),
  };
}

/** Faked HTTP while a transcript runs: `unmatched` lists the requests nobody faked; `restore()` undoes it. */
export interface InstalledFakes {
  unmatched: string[];
  restore(): Promise<void>;
}

/** Installs `fakes` as the process's HTTP (the global dispatcher); the network is refused meanwhile. */
export function installHttpFakes(fakes: readonly HttpFake[]): InstalledFakes {
  const agent = new MockAgent();
  agent.disableNetConnect();
  for (const fake of fakes) {
    const url = new URL(fake.url);
    const scope = agent
      .get(url.origin)
      .intercept({ path: `${url.pathname}${url.search}`, method: fake.method })
      .reply(
        fake.status,
        fake.body === undefined ? '' : typeof fake.body === 'string' ? fake.body : JSON.stringify(fake.body),
        {
          headers: {
            ...(fake.body !== undefined && typeof fake.body !== 'string'
              ? { 'content-type': 'application/json' }
              : {}),
            ...fake.headers,
          },
        },
      );
    if (fake.times !== undefined) scope.times(fake.times);
    else scope.persist();
  }
  const unmatched: string[] = [];
  const dispatch = agent.dispatch.bind(agent);
  // MockAgent reports a request nobody faked to the request's handler: note which one it was.
  agent.dispatch = (options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) => {
    const note = (error: unknown) => {
      if ((error as Error | undefined)?.name === 'MockNotMatchedError')
        unmatched.push(`${options.method} ${String(options.origin ?? '')}${options.path}`);
    };
    const watched = new Proxy(handler, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (typeof value !== 'function') return value;
        if (key === 'onError' || key === 'onResponseError')
          return (...args: unknown[]) => {
            note(args.at(-1));
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
    try {
      return dispatch(options, watched);
    } catch (error) {
      note(error);
      throw error;
    }
  };
  const previous = getGlobalDispatcher();
  setGlobalDispatcher(agent);
  return {
    unmatched,
    async restore() {
      setGlobalDispatcher(previous);
      await agent.close();
    },
  };
}
