import * as z from "zod/mini";

/**
 * The rules history's wire shape (`GET /operator/rules/versions`): for the OpenAPI document, the
 * CLI and the tests. The Worker answers it without parsing, so this stays out of its bundle.
 */

export const RulesVersionItemSchema = z
  .object({
    object: z.literal("rules_version"),
    seq: z.int().register(z.globalRegistry, { description: "1, 2, 3… in the order the actions took effect." }),
    at: z.iso.datetime(),
    action: z.enum(["publish", "rollback"]),
    version: z.string().register(z.globalRegistry, { description: "The version that went live." }),
    from: z
      .nullable(z.string())
      .register(z.globalRegistry, { description: "The version live before; null for the first." }),
    live: z.boolean().register(z.globalRegistry, { description: "True on the last entry: its version is live now." }),
    kept: z.boolean().register(z.globalRegistry, {
      description:
        "Whether its document is still kept, so a rollback can return to it (the live, the previous and the last 10 published are).",
    }),
    discounts: z
      .nullable(z.int())
      .register(z.globalRegistry, { description: "Discounts in the document; null once it is no longer kept." }),
    codes: z.nullable(z.int()).register(z.globalRegistry, { description: "Of them, with a code." }),
    zones: z.nullable(z.int()).register(z.globalRegistry, { description: "Shipping zones." }),
    tax: z
      .nullable(z.string())
      .register(z.globalRegistry, { description: "`tax.mode`, or null without tax rules (or once not kept)." }),
  })
  .register(z.globalRegistry, {
    id: "RulesVersionItem",
    description: "One publish or rollback of the rules document.",
  });

export const RulesHistorySchema = z
  .object({
    object: z.literal("list"),
    count: z.int(),
    data: z.array(RulesVersionItemSchema),
    has_more: z.literal(false),
  })
  .register(z.globalRegistry, {
    id: "RulesHistory",
    description: "Every publish and rollback of the rules document, oldest first (append-only).",
  });
export type RulesHistory = z.infer<typeof RulesHistorySchema>;
