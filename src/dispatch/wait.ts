/** Waiting for work in flight when a part stops. */

/** Resolves when every promise settled, or after `waitMs` (a duration, clamped to what a timer takes). */
export async function settledWithin(promises: Iterable<Promise<unknown>>, waitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, Math.min(waitMs, 2_147_483_647)));
    }),
  ]);
  clearTimeout(timer);
}
