/**
 * A secret value (the bot token, the webhook secret) that cannot leak by accident: printing it, logging it,
 * interpolating it into a message or serialising it to JSON all give `[redacted]`. Only `reveal()` gives
 * the value, at the one place that must send it.
 */
const values = new WeakMap<Secret, string>();

/** Wraps a secret string so that it never appears in logs, errors or JSON output. */
export class Secret {
  constructor(value: string) {
    values.set(this, value);
  }

  /** The secret itself: call this only where it is sent (the Authorization header, the subscription). */
  reveal(): string {
    return values.get(this) ?? '';
  }

  /** How many characters the secret has, for validation messages that must not show it. */
  get length(): number {
    return this.reveal().length;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'Secret([redacted])';
  }
}
