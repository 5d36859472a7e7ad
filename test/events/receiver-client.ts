import { inject } from "vitest";
import type { Received, Step } from "./receiver.ts";

/** The order-event receiver the workerd project's worker delivers to (test/events/global-setup.ts). */
export const RECEIVER = inject("orderReceiver");

/** Scripts the receiver's next answers to `orderId`'s events: a status each, or `drop` (the connection cut). Then 200. */
export async function script(orderId: string, steps: Step[]): Promise<void> {
  const res = await fetch(`${RECEIVER}/script/${orderId}`, { method: "PUT", body: JSON.stringify(steps) });
  await res.body?.cancel();
}

/** Every delivery of `orderId`'s events the receiver got, in arrival order. */
export async function received(orderId: string): Promise<Received[]> {
  return (await (await fetch(`${RECEIVER}/received?order_id=${orderId}`)).json()) as Received[];
}
