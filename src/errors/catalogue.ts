/**
 * Every error a user of botflow can meet, by its stable code, with its one-line meaning (the model is
 * fastify's `lib/errors.js`). A code is never renamed nor reused once released; docs/errors.md gives each
 * one its line (what it means, what to do), and test/errors/catalogue.test.ts keeps the two in step.
 * Errors that only guard the code's own invariants stay plain `Error`s, with a comment saying so.
 *
 * @example
 * ```ts
 * import { type BotflowCode, CATALOGUE } from 'botflow-engine/client';
 *
 * const code: BotflowCode = 'BOTFLOW_DEAD_LETTER';
 * console.log(`${code}: ${CATALOGUE[code]}`);
 * ```
 */
export const CATALOGUE = {
  // Configuration and start-up (src/runtime/)
  BOTFLOW_CONFIG_INVALID: 'the configuration (file, environment, command line) breaks a rule',
  BOTFLOW_CONFIG_SOURCE: 'a configuration file or secret file cannot be found or read',
  BOTFLOW_STARTUP_FAILED: 'botflow run could not start (configuration, self-check, flows, listening)',
  BOTFLOW_RECORDING_INVALID: 'a recording file (botflow run --record) cannot be read',
  // The public API's options (createBot, createEngine, the intake functions)
  BOTFLOW_OPTIONS_INVALID: 'a function of the public API was given options it cannot work with',
  BOTFLOW_ENGINE_BUSY: 'an engine method was called while the engine was doing something it conflicts with',
  BOTFLOW_WRITER_THREAD_FAILED: 'the writer thread could not start or exited',
  BOTFLOW_WRITER_THREAD_STOPPED: 'a write was asked of a writer thread that has stopped',
  // Intake (src/intake/, src/inbox/)
  BOTFLOW_SUBSCRIPTION_FAILED: 'the platform refused to set up or remove the webhook subscription',
  BOTFLOW_POLLING_FAILED:
    'long polling cannot run (a webhook subscription is in the way) or stopped on an error',
  BOTFLOW_UPDATE_INVALID: 'an incoming update is not a JSON object with an update_type, or nests too deep',
  BOTFLOW_EVENT_INVALID:
    'an external event was refused: its name, address, idempotency key or payload breaks a rule',
  BOTFLOW_INIT_DATA_INVALID:
    "a mini-app's initData is malformed (not a query string, a field twice, no hash)",
  BOTFLOW_INIT_DATA_SIGNATURE: "a mini-app's initData hash does not match: another bot's token, or tampered",
  BOTFLOW_INIT_DATA_EXPIRED: "a mini-app's initData auth_date is older than allowed (or ahead of the clock)",
  BOTFLOW_EVENTS_UNAUTHORIZED: 'a request to the events endpoint carried no valid key (or no valid initData)',
  BOTFLOW_EVENTS_REQUEST_INVALID:
    'a request to the events endpoint is not a JSON object sent as application/json',
  BOTFLOW_EVENTS_TOO_LARGE: 'a request to the events endpoint is larger than events.maxBody allows',
  BOTFLOW_EVENT_NOT_ALLOWED: 'a mini-app sent an event whose name is not listed in events.miniApp',
  BOTFLOW_EVENTS_UNAVAILABLE:
    'the events endpoint could not store the event (the bot is stopping, the database failed)',
  // Flows (src/flows/, src/engine/step/)
  BOTFLOW_FLOW_DEFINITION: 'a flow given to the engine is not usable (duplicate id, invoke/spawn, bad shape)',
  BOTFLOW_FLOW_VERSION_MISSING: 'a session is pinned to a flow version this process did not load',
  BOTFLOW_FLOW_FAILED:
    "a flow's own code failed at run time (the flow recovers: on_error or the built-in apology)",
  BOTFLOW_FLOW_REBUILD: 'a flow version stored in the database could not be built again',
  BOTFLOW_FLOW_EXPRESSION: 'a computed value (=expression) of a flow cannot be read or evaluated',
  BOTFLOW_FLOW_REGEX: 'a pattern of a flow cannot be used as a safe regular expression',
  BOTFLOW_STEP_FAILED: 'a step could not be taken (the machine refused the event or threw)',
  BOTFLOW_EFFECT_INVALID: 'an effect a flow asked for cannot be turned into an API call',
  BOTFLOW_BUTTON_PAYLOAD: 'a button payload is too long or malformed',
  // Campaigns (src/engine/campaign-*.ts)
  BOTFLOW_CAMPAIGN_INVALID:
    'a campaign (file or API) breaks a rule of its format: flow, segment, rate, quiet hours, cap',
  BOTFLOW_CAMPAIGN_NOT_FOUND: 'no campaign has the id or name given',
  BOTFLOW_CAMPAIGN_STATE:
    'a campaign cannot do that in its state (resume a cancelled one, start a name twice)',
  // Dispatch (src/dispatch/)
  BOTFLOW_TASK_FAILED: 'a task failed (its own code is in `code`)',
  // The Bot API client (src/client/)
  BOTFLOW_API_ERROR: 'the platform answered a call with an error status (its code is in `code`)',
  BOTFLOW_NETWORK_ERROR: 'no answer came from the platform (the socket error is in `code`)',
  BOTFLOW_API_USAGE: 'the client refused a call before sending it: the arguments break a documented rule',
  BOTFLOW_DECODE: 'a value does not have the shape the Bot API describes',
  BOTFLOW_RESPONSE_DECODE: 'a successful answer of the platform does not have the expected shape',
  BOTFLOW_DEAD_LETTER: 'the scheduler gave up on a call (attempts, deadline, closed, refused)',
  BOTFLOW_SCHEDULER_DRAIN_TIMEOUT: 'the scheduler still had calls pending when drain() timed out',
  // The store (src/store/)
  BOTFLOW_MIGRATION_FAILED: 'the database schema could not be brought up to date',
  BOTFLOW_REVISION_CONFLICT: 'another writer committed a step of the same session first',
  BOTFLOW_LEASE_LOST: 'this instance lost its lease on a conversation to another instance',
  BOTFLOW_SQLITE_MISSING: 'the SQLite driver for this Node version is not installed',
  BOTFLOW_POSTGRES_CONNECT: 'PostgreSQL cannot be reached at the configured URL',
  BOTFLOW_POSTGRES_SCHEMA: "a bot's PostgreSQL schema name is invalid or reserved",
  BOTFLOW_BOTS_CATALOG: 'the catalog of bots refused a change (name or alias taken, bot unknown)',
  BOTFLOW_POSTGRES_NOT_EMPTY: 'copying into PostgreSQL was refused: the database already holds data',
  BOTFLOW_DATABASE_UNREADABLE: 'a command could not read the database (missing, not migrated, unreadable)',
  // The CLI (src/cli/)
  BOTFLOW_CLI_USAGE: 'a command was given an unknown option or a bad value',
  BOTFLOW_INIT_REFUSED: 'botflow init refused: files are in the way or an example is unknown',
  // The sandbox (src/sandbox/)
  BOTFLOW_SANDBOX_CONTROL: "the sandbox's control API refused a request (its code is in `code`)",
  BOTFLOW_SANDBOX_USAGE: 'the sandbox was asked for something it does not know or did not happen in time',
  BOTFLOW_SANDBOX_ASSETS_MISSING: "the sandbox's web chat page is missing from the installed package",
  // Testing (src/testing/)
  BOTFLOW_TRANSCRIPT: 'a transcript cannot be run as written (bad step, unknown person, bad stub)',
  BOTFLOW_TEST_SETUP: 'a test could not be prepared (flows with problems, missing file, nothing to save)',
} as const satisfies Record<`BOTFLOW_${string}`, string>;

/** A stable code of the catalogue. */
export type BotflowCode = keyof typeof CATALOGUE;
