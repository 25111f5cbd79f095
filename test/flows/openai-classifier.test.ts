/** The example OpenAI-compatible classifier (flows/code/openai-classifier.ts), against undici's MockAgent. */
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { openAiClassifier } from '../../flows/code/openai-classifier.ts';
import { type TaskContext, TaskError } from '../../src/flows/registry.ts';

const agents: MockAgent[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.close();
});

function setup(status: number, content: unknown) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agents.push(agent);
  const seen: { body: Record<string, unknown>; auth: unknown }[] = [];
  agent
    .get('https://llm.example')
    .intercept({ path: '/v1/chat/completions', method: 'POST' })
    .reply(status, (opts) => {
      seen.push({
        body: JSON.parse(String(opts.body)),
        auth: (opts.headers as Record<string, string>).authorization,
      });
      return typeof content === 'string' ? { choices: [{ message: { content } }] } : content;
    });
  const task = openAiClassifier({
    baseUrl: 'https://llm.example/v1/',
    apiKey: 'k-1',
    model: 'm',
    dispatcher: agent,
  });
  const run = async (text: string) =>
    await task.run({ text, locale: 'en', intents: ['book', 'human'], vars: {} }, {
      signal: new AbortController().signal,
    } as TaskContext);
  return { seen, run };
}

describe('the OpenAI-compatible classifier example', () => {
  it('asks chat completions for JSON with the text and the intents, and reads the answer', async () => {
    const { seen, run } = setup(
      200,
      JSON.stringify({ intent: 'book', confidence: 0.92, slots: { guests: 4 } }),
    );
    await expect(run('a table for 4')).resolves.toEqual({
      intent: 'book',
      confidence: 0.92,
      slots: { guests: 4 },
    });
    expect(seen[0]!.auth).toBe('Bearer k-1');
    expect(seen[0]!.body).toMatchObject({
      model: 'm',
      temperature: 0,
      response_format: { type: 'json_object' },
    });
    const user = (seen[0]!.body.messages as { role: string; content: string }[]).at(-1)!;
    expect(JSON.parse(user.content)).toEqual({
      intents: ['book', 'human'],
      locale: 'en',
      message: 'a table for 4',
    });
  });

  it('an intent it was not offered, or an answer that is no JSON, is no intent', async () => {
    await expect(setup(200, '{"intent":"pizza","confidence":0.9}').run('pizza?')).resolves.toEqual({
      intent: null,
      confidence: 0,
    });
    await expect(setup(200, 'I think: book').run('x')).resolves.toEqual({ intent: null, confidence: 0 });
  });

  it('an outage is a retryable failure; a refusal is not', async () => {
    const down = await setup(503, { error: 'busy' })
      .run('x')
      .catch((e: unknown) => e);
    expect(down).toBeInstanceOf(TaskError);
    expect(down).toMatchObject({ code: 'unavailable', retryable: true });
    const refused = await setup(401, { error: 'key' })
      .run('x')
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'refused', retryable: false });
  });
});
