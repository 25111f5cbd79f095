/**
 * An intent classifier for `understand: { classifier: … }` that asks any OpenAI-compatible chat completions
 * API (OpenAI, a local llama.cpp or vLLM server, …) for a JSON answer. Not registered by the examples (it
 * needs a model); register it yourself:
 *
 *   tasks: { nlu: openAiClassifier({ baseUrl: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY, model: 'gpt-4o-mini' }) }
 *
 * and write `understand: { classifier: nlu, intents: { … } }` on a step. Tested with undici's MockAgent
 * (test/flows/openai-classifier.test.ts), never a live model.
 */
import { type Dispatcher, request } from 'undici';
import { ClassifierInput, ClassifierResult, defineTask, TaskError } from '../../src/flows/registry.ts';

export interface OpenAiClassifierOptions {
  /** The API's base address, up to `/v1`: `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` (never logged). */
  apiKey?: string;
  model: string;
  /** An undici dispatcher (a proxy, a pool, a MockAgent in tests); default: undici's global one. */
  dispatcher?: Dispatcher;
}

const SYSTEM = [
  'You classify one message of a person talking to a bot.',
  'Answer with a JSON object only: {"intent": <one of the intents given, or null>, "confidence": <0..1>,',
  '"slots": {<name>: <value>}}. Slots are values the message states (a number of guests, a day); omit them',
  'when there are none. Use null when the message fits none of the intents.',
].join(' ');

/** The classifier task: input and result are botflow's fixed classifier shapes. */
export function openAiClassifier(o: OpenAiClassifierOptions) {
  return defineTask({
    input: ClassifierInput,
    result: ClassifierResult,
    async run(input, { signal }) {
      const res = await request(`${o.baseUrl.replace(/\/$/, '')}/chat/completions`, {
        method: 'POST',
        signal,
        ...(o.dispatcher ? { dispatcher: o.dispatcher } : {}),
        headers: {
          'content-type': 'application/json',
          ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: o.model,
          temperature: 0,
          response_format: { type: 'json_object' },
          messages: [
            { role: 'system', content: SYSTEM },
            {
              role: 'user',
              content: JSON.stringify({ intents: input.intents, locale: input.locale, message: input.text }),
            },
          ],
        }),
      });
      const body = (await res.body.json().catch(() => undefined)) as
        | { choices?: { message?: { content?: string } }[] }
        | undefined;
      // Rate limits and outages are tried again (the task's retry policy); other refusals are not.
      if (res.statusCode === 429 || res.statusCode >= 500)
        throw new TaskError('unavailable', `the classifier answered ${res.statusCode}`, { retryable: true });
      if (res.statusCode >= 400) throw new TaskError('refused', `the classifier answered ${res.statusCode}`);
      return readAnswer(body?.choices?.[0]?.message?.content, input.intents);
    },
  });
}

/** The model's JSON answer as a classification; anything else (or an intent not offered) is no intent. */
export function readAnswer(content: string | undefined, intents: readonly string[]): ClassifierResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content ?? '');
  } catch {
    return { intent: null, confidence: 0 };
  }
  const r = ClassifierResult.safeParse(parsed);
  if (!r.success || (r.data.intent !== null && !intents.includes(r.data.intent)))
    return { intent: null, confidence: 0 };
  return r.data;
}
