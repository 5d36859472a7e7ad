import type { TestProject } from "vitest/node";
import { OrderReceiver } from "./receiver.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The order-event receiver's address, whose /hook the workerd project's worker gets as ORDER_WEBHOOK_URL. */
    orderReceiver: string;
  }
}

/** Starts the order-event receiver (./receiver.ts) for the workerd project: every order any test writes is delivered to it. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const receiver = new OrderReceiver();
  project.provide("orderReceiver", await receiver.start());
  return () => receiver.stop();
}
