export async function busyPart(_bots: number, _seconds: number): Promise<Record<string, unknown>> {
  throw new Error('part B: not written yet');
}
