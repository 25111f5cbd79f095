/**
 * The startup self-check: one GET /me with a short timeout, whose outcome becomes one plain sentence a
 * person can act on (a refused token, an untrusted TLS chain, an unreachable address) instead of a stack
 * trace from deep inside undici. Nothing else starts until it passes.
 */
import { ApiError, NetworkError, ResponseDecodeError } from '../client/errors.ts';

/** The bot as GET /me describes it. */
export interface BotIdentity {
  id: number;
  name: string;
  username?: string;
}

/** What went wrong, for callers that branch on it (exit codes, tests). */
export type SelfCheckProblem = 'token' | 'tls' | 'unreachable' | 'timeout' | 'not-bot-api' | 'platform';

/** The outcome of the self-check. */
export type SelfCheckResult =
  | { ok: true; bot: BotIdentity; message: string }
  | { ok: false; problem: SelfCheckProblem; code: string; message: string };

/** What the self-check needs to know to word its advice. */
export interface SelfCheckContext {
  baseUrl: string;
  /** CA files already configured: changes the advice for an untrusted chain. */
  caFiles?: string[];
  /** Time allowed for GET /me, in ms (default 10 000). */
  timeoutMs?: number;
}

type MeApi = {
  getMyInfo(options?: { timeoutMs?: number }): Promise<{
    user_id: number;
    first_name?: string;
    name?: string;
    username?: string | null;
  }>;
};

/** Calls GET /me and describes the result in one sentence. Never throws for a failed call. */
export async function selfCheck(api: MeApi, context: SelfCheckContext): Promise<SelfCheckResult> {
  try {
    const me = await api.getMyInfo({ timeoutMs: context.timeoutMs ?? 10_000 });
    const name = me.first_name ?? me.name ?? String(me.user_id);
    const bot: BotIdentity = { id: me.user_id, name, ...(me.username ? { username: me.username } : {}) };
    const handle = bot.username ? ` (@${bot.username})` : '';
    return { ok: true, bot, message: `connected to ${context.baseUrl} as ${name}${handle}, id ${bot.id}` };
  } catch (error) {
    return { ok: false, ...explainFailure(error, context) };
  }
}

/** Certificate codes meaning "the chain does not end at a CA this process trusts". */
const UNTRUSTED_CHAIN = new Set([
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
]);

const CA_ADVICE =
  "the platform's certificates are issued by a national CA that Node does not trust by default: " +
  'add its root CA and issuing sub CA (PEM files) to caFiles in the configuration or BOTFLOW_CA_FILES ' +
  '(comma-separated). Never disable certificate checks: that exposes the token and every message';

/** Turns a failed GET /me into a problem kind, the low-level code and one sentence of advice. */
export function explainFailure(
  error: unknown,
  context: SelfCheckContext,
): { problem: SelfCheckProblem; code: string; message: string } {
  const base = context.baseUrl;
  const host = hostOf(base);
  if (error instanceof ApiError) {
    if (error.status === 401 || error.code === 'verify.token') {
      return {
        problem: 'token',
        code: error.code,
        message: `the platform refused the token (${error.code}): check BOTFLOW_TOKEN (or \`token\` in the configuration file); it must be the bot's token exactly, without "Bearer"`,
      };
    }
    if (error.status === 404 || error.status === 405) {
      return {
        problem: 'not-bot-api',
        code: error.code,
        message: `${base}/me answered HTTP ${error.status}: the base URL does not point at the Bot API; check BOTFLOW_BASE_URL (the platform is https://platform-api2.max.ru)`,
      };
    }
    return {
      problem: 'platform',
      code: error.code,
      message: `the platform answered GET /me with HTTP ${error.status} ${error.code}${error.platformMessage ? ` (${error.platformMessage})` : ''}: try again later, or check BOTFLOW_BASE_URL`,
    };
  }
  if (error instanceof ResponseDecodeError) {
    return {
      problem: 'not-bot-api',
      code: 'decode',
      message: `${base}/me answered, but not like the Bot API (${error.message}): check BOTFLOW_BASE_URL`,
    };
  }
  const code = error instanceof NetworkError ? error.code : ((error as { code?: string })?.code ?? 'error');
  if (UNTRUSTED_CHAIN.has(code)) {
    const configured = context.caFiles?.length
      ? `the configured caFiles (${context.caFiles.length}) do not complete the chain of ${host}: ` +
        (code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' || code === 'UNABLE_TO_GET_ISSUER_CERT'
          ? 'the server sends only its own certificate, so the issuing sub CA must be in caFiles as well as the root'
          : 'check that they are the root and sub CA that issued this server certificate')
      : CA_ADVICE;
    return {
      problem: 'tls',
      code,
      message: `the TLS certificate of ${host} is not trusted (${code}): ${configured}`,
    };
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return {
      problem: 'tls',
      code,
      message: `the TLS certificate of ${host} is outside its validity period (${code}): check this machine's clock and time zone; if the clock is right, the server's certificate has expired`,
    };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') {
    return {
      problem: 'tls',
      code,
      message: `the TLS certificate presented at ${host} is issued for another name (${code}): check the host name in BOTFLOW_BASE_URL`,
    };
  }
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code.startsWith('EPROTO')) {
    return {
      problem: 'tls',
      code,
      message: `the TLS handshake with ${host} failed (${code}): check that BOTFLOW_BASE_URL uses https:// for a TLS server and http:// only for a local test server`,
    };
  }
  if (
    ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'].includes(code)
  ) {
    return {
      problem: 'unreachable',
      code,
      message: `the base URL ${base} is unreachable (${code}${code === 'ENOTFOUND' ? ': no such host' : ''}): check BOTFLOW_BASE_URL, DNS, a firewall or proxy between this machine and the platform`,
    };
  }
  if (code.includes('TIMEOUT') || code === 'ABORTED') {
    return {
      problem: 'timeout',
      code,
      message: `${base} did not answer GET /me within ${context.timeoutMs ?? 10_000} ms (${code}): check the network path to the platform, or a firewall that drops packets`,
    };
  }
  const detail = error instanceof Error ? error.message : String(error);
  return {
    problem: 'unreachable',
    code,
    message: `GET /me at ${base} failed (${code}): ${detail}`,
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
