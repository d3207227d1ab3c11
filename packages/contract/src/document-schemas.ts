// What adjustments, transfers and holds (reservations) share as documents: the partner who acts
// on them.
import { z } from 'zod';
import type { Example } from './examples.js';
import { TEXT_LIMITS, storedText } from './text-schemas.js';

/** The acting partner on adjustments, transfers and holds: `{id, name, email}`. */
export const partnerActor = z
  .strictObject({ id: z.int().min(0), name: storedText(TEXT_LIMITS.actor), email: storedText(TEXT_LIMITS.email) })
  .meta({ id: 'Actor', description: 'The acting partner: its id, name and contact email.' });

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in examples.ts)

export const actorExample: Example<typeof partnerActor> = { id: 1, name: 'Demo Partner', email: 'developers@demo-partner.example' };
