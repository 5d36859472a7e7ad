import * as z from "zod/mini";

/**
 * The rules history's wire shape (`GET /operator/rules/versions`): for the OpenAPI document, the
 * CLI and the tests. The Worker answers it without parsing, so this stays out of its bundle. Its
 * documentation: src/routes/reference/schemas/rules.ts.
 */

export const RulesVersionItemSchema = z.object({
  object: z.literal("rules_version"),
  seq: z.int(),
  at: z.iso.datetime(),
  action: z.enum(["publish", "rollback"]),
  version: z.string(),
  from: z.nullable(z.string()),
  live: z.boolean(),
  kept: z.boolean(),
  discounts: z.nullable(z.int()),
  codes: z.nullable(z.int()),
  zones: z.nullable(z.int()),
  tax: z.nullable(z.string()),
});

export const RulesHistorySchema = z.object({
  object: z.literal("list"),
  count: z.int(),
  data: z.array(RulesVersionItemSchema),
  has_more: z.literal(false),
});
export type RulesHistory = z.infer<typeof RulesHistorySchema>;
