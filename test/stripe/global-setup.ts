import type { TestProject } from "vitest/node";
import { StripeStandIn } from "./stand-in.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Stripe stand-in's address, which the workerd project's worker gets as STRIPE_API_BASE. */
    stripeStandIn: string;
  }
}

/** Starts the Stripe stand-in (./stand-in.ts) for the workerd project; its URL reaches the worker as a binding. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const standIn = new StripeStandIn();
  standIn.warm();
  project.provide("stripeStandIn", await standIn.start());
  return () => standIn.stop();
}
