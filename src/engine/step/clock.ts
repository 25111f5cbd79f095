/** The engine's clock: defined beside the store's ports (the dispatcher, task runner and leases take it too). */
export { type Clock, clockFrom, systemClock, type TimerHandle } from '../../store/ports/clock.ts';
