/** The booking example's code (flows/booking.flow.yaml): its two tasks. */
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { defineTask, TaskError } from '../../src/flows/registry.ts';

/**
 * The restaurant's own systems, faked in-process so that `npm start` works offline: a table plan per day
 * and a booking book. A real bot would call its booking API here, giving it the task's idempotency key.
 */
const TIMES = [
  '12:00',
  '12:30',
  '13:00',
  '13:30',
  '18:00',
  '18:30',
  '19:00',
  '19:30',
  '20:00',
  '20:30',
  '21:00',
];
const taken = new Set<string>();
const bookings = new Map<string, { id: string }>();

const findSlots = defineTask({
  input: z.object({ day: z.string(), guests: z.number().int().min(1) }),
  result: z.array(z.object({ time: z.string(), seats: z.number().int() })),
  async run({ day, guests }, { signal }) {
    await delay(300, undefined, { signal }); // the time a real API call takes ("typing…" shows meanwhile)
    if (new Date(`${day}T00:00:00Z`).getUTCDay() === 1) throw new TaskError('closed', 'closed on Mondays');
    // Seats per time vary with the day, the same every run.
    const seed = [...day].reduce((n, c) => n + c.charCodeAt(0), 0);
    return TIMES.map((time, i) => ({ time, seats: 2 + ((seed + i * 7) % 9) })).filter(
      (slot) => slot.seats >= guests && !taken.has(`${day} ${slot.time}`),
    );
  },
});

const saveBooking = defineTask({
  input: z.object({ day: z.string(), time: z.string(), guests: z.number().int(), extras: z.unknown() }),
  result: z.object({ id: z.string() }),
  async run({ day, time }, { idempotencyKey, signal }) {
    await delay(300, undefined, { signal });
    // The same booking tried again (a retry, a restart mid-call) finds the first one: never booked twice.
    const known = bookings.get(idempotencyKey);
    if (known) return known;
    if (taken.has(`${day} ${time}`)) throw new TaskError('slot_taken', `${day} ${time} was just taken`);
    taken.add(`${day} ${time}`);
    const booking = { id: `B-${1001 + bookings.size}` };
    bookings.set(idempotencyKey, booking);
    return booking;
  },
});

export default { tasks: { find_slots: findSlots, save_booking: saveBooking } };
