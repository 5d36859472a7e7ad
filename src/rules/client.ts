import type { RulesPublisher } from "./rules-object.ts";

/** The one RulesPublisher object: every rules write and the operator's reads go through it. */
export function rulesPublisher(env: Env): DurableObjectStub<RulesPublisher> {
  const namespace = env.RULES as DurableObjectNamespace<RulesPublisher>;
  return namespace.get(namespace.idFromName("live"));
}
