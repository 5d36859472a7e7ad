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
