import * as z from "zod/mini";

/** The operator's rules surface (contract 10.1) beside the document itself (schema.ts): history and rollback. */

/** The largest rules document `PUT /operator/rules` takes: 10,000 discounts of about 50 bytes each. */
export const RULES_MAX_BYTES = 512 * 1024;

const VersionNameSchema = z
  .string()
  .check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, "a rules version name (npm run rules -- list)"))
  .register(z.globalRegistry, {
    description: "A rules version, as `GET /operator/rules/versions` lists it (its `ETag` without the quotes).",
    example: "20261201T090000Z-3f9a1c",
  });

export const RollbackRulesRequestSchema = z
  .strictObject({
    version: z.optional(VersionNameSchema).register(z.globalRegistry, {
      description: "The version to make live again; absent: the previous one (two rollbacks in a row return).",
    }),
  })
  .register(z.globalRegistry, {
    id: "RollbackRulesRequest",
    description: "Which kept version goes live again. `{}` for the previous one.",
    example: {},
  });
export type RollbackRulesRequest = z.infer<typeof RollbackRulesRequestSchema>;

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
