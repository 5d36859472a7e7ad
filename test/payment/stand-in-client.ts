import { inject } from "vitest";
import type { Fault, Seen } from "../stripe/stand-in.ts";

/** The Stripe stand-in the workerd project's worker talks to (test/stripe/global-setup.ts). */
export const STAND_IN = inject("stripeStandIn");

/** Makes the next `times` requests whose path or body contains `match` fail as `mode` says. */
export async function injectFault(match: string, mode: Fault["mode"], times = 1): Promise<void> {
  const res = await fetch(`${STAND_IN}/__stand-in/faults`, {
    method: "POST",
    body: JSON.stringify({ match, mode, times }),
  });
  await res.body?.cancel();
}

/** Every request the stand-in saw whose path or raw body contains `match`. */
export async function seenBy(match: string): Promise<Seen[]> {
  return (await (await fetch(`${STAND_IN}/__stand-in/seen?match=${encodeURIComponent(match)}`)).json()) as Seen[];
}

/** A session as the stand-in holds it (status, amount_total…). */
export async function standInSession(id: string): Promise<Record<string, unknown> | null> {
  return (await (await fetch(`${STAND_IN}/__stand-in/sessions/${id}`)).json()) as Record<string, unknown> | null;
}
