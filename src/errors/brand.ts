/**
 * Error classes recognised by a brand instead of by identity. A project's `flows/registry.ts` may run
 * with its own copy of botflow's modules (another installed version; botflow's sources in a checkout,
 * bundled with it by flows/bundle-code.ts, or through tsx in a folder that runs as CommonJS): a
 * `TaskError` it throws is then not an instance of the engine's `TaskError` class. Each branded class stamps its instances
 * with a `Symbol.for` key (the same in every copy and realm), and its `Symbol.hasInstance` looks for it,
 * so `error instanceof TaskError` holds whichever copy created the error.
 */

/** Marks the instances of `cls` (call once, after the class) and makes `instanceof` read the mark. */
export function brandClass(cls: abstract new (...args: never[]) => object, name: string): void {
  const brand = Symbol.for(`botflow.${name}`);
  Object.defineProperty(cls.prototype, brand, { value: true });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(this: unknown, value: unknown): boolean {
      // A subclass (`class SoldOut extends TaskError`) inherits this: it keeps the ordinary check.
      if (this !== cls) return Function.prototype[Symbol.hasInstance].call(this, value);
      return (
        typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true
      );
    },
  });
}
