/**
 * Intake of a running bot: a webhook receiver (any process may receive deliveries behind a load balancer)
 * or long polling, by the process that holds the dispatcher role (every call to the platform then goes
 * through one scheduler; one process always holds it), switched as the role moves. And how intake's
 * failure for good (polling refused, the token revoked) is reported.
 */
import type { FastifyPluginCallback } from 'fastify';
import type { Logger } from 'pino';
import { throttledClient } from '../client/scheduler/throttled-client.ts';
import type { Engine } from '../engine/engine.ts';
import type { Role } from '../engine/lane/ownership.ts';
import type { IntakeHandle, IntakeOptions, StartAppOptions } from './app-parts.ts';
import type { Started } from './app-shutdown.ts';
import type { AppStore } from './app-store.ts';
import type { Config } from './config.ts';
import { type HealthProbe, healthRoutes } from './health.ts';
import { pollSpacingMs, spacedPolls } from './poll-spacing.ts';
import { describeListenError } from './startup-error.ts';

/** What every intake of the app is started with. */
export interface AppIntake {
  config: Config;
  options: StartAppOptions;
  started: Started;
  /** The platform through the scheduler: the subscription check and the polls count in the same window as everything else. */
  throttled: ReturnType<typeof throttledClient>;
  /** Wakes the engine after each commit (and records the batch with `--record`). */
  accepted: IntakeOptions['onAccepted'];
  logger: Logger;
  /** Reports the part's failure for good (intakeFailures). */
  watch(part: IntakeHandle): void;
}

/** What intake is started with, once the engine `running` and its scheduler are. */
export function appIntake(
  config: Config,
  options: StartAppOptions,
  started: Started,
  running: Engine<boolean>,
  watch: (part: IntakeHandle) => void,
): AppIntake {
  return {
    config,
    options,
    started,
    throttled: throttledClient(started.scheduler!),
    accepted: (batch) => {
      if (options.recorder && batch) options.recorder.accepted(batch.payloads);
      running.notify();
    },
    logger: options.logger.child({ component: 'intake' }),
    watch,
  };
}

/** `failed` resolves with the reason when a part `watch`ed fails for good. */
export function intakeFailures(): { failed: Promise<Error>; watch(part: IntakeHandle): void } {
  let fail: (error: Error) => void = () => {};
  const failed = new Promise<Error>((resolve) => {
    fail = resolve;
  });
  // Plain Error: only wraps a thrown non-Error so it can be reported; it is not an error of its own.
  const watch = (part: IntakeHandle) =>
    part.done?.catch((error: unknown) => fail(error instanceof Error ? error : new Error(String(error))));
  return { failed, watch };
}

/**
 * Starts or stops the long poll as the process gains or loses the dispatcher role, one switch after the
 * other. Only the dispatcher polls (one scheduler for every call), from the marker the last poller committed.
 */
export function pollingSwitch(intake: AppIntake): (role: Role) => Promise<void> {
  const { config, options, started } = intake;
  let switching = Promise.resolve();
  return (role) => {
    switching = switching
      .catch(() => {})
      .then(async () => {
        if (role.dispatcher && !started.poller && started.engine) {
          started.poller = await options.parts.startPolling({
            api: spacedPolls(intake.throttled, () => pollSpacingMs(started.scheduler!.metrics())),
            conversationKey: config.conversationKey,
            onAccepted: intake.accepted,
            logger: intake.logger,
            timeoutSeconds: config.polling.timeoutSeconds,
            limit: config.polling.limit,
            ...(config.polling.updateTypes ? { types: config.polling.updateTypes } : {}),
            store: await started.database!.pollingStore(),
          });
          intake.watch(started.poller);
        } else if (!role.dispatcher && started.poller) {
          const stopping = started.poller;
          started.poller = undefined;
          await stopping.stop();
        }
      });
    return switching;
  };
}

/**
 * The webhook receiver, with the health checks and the events `endpoint` on its port (mounted: the
 * embedding app mounts the receiver and `eventsEndpoint`).
 */
export async function startWebhookIntake(
  intake: AppIntake,
  commits: AppStore['intake'],
  probe: HealthProbe,
  endpoint: FastifyPluginCallback | undefined,
): Promise<IntakeHandle> {
  const { config, options } = intake;
  const { host, port, path, url, secret, updateTypes } = config.webhook;
  try {
    return await options.parts.startWebhook({
      api: intake.throttled,
      conversationKey: config.conversationKey,
      onAccepted: intake.accepted,
      logger: intake.logger,
      ...commits,
      host,
      port,
      path,
      url: url!,
      secret: secret!.reveal(),
      ...(updateTypes ? { types: updateTypes } : {}),
      ...(options.mountWebhook ? { mount: true } : {}),
      routes: (app, _options, done) => {
        app.register(healthRoutes(probe));
        if (endpoint && !options.mountWebhook) app.register(endpoint);
        done();
      },
    });
  } catch (error) {
    const where = `the webhook receiver cannot listen on ${host}:${port}`;
    throw describeListenError(error, where, 'webhook.port or BOTFLOW_WEBHOOK_PORT') ?? error;
  }
}
