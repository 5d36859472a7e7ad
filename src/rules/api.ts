import { VERSION_NAME } from "../version-name.ts";
import * as z from "zod/mini";

/** The operator's rules surface (contract 10.1) beside the document itself (schema.ts): history and rollback. */

/** The largest rules document `PUT /operator/rules` takes: 10,000 discounts of about 50 bytes each. */
export const RULES_MAX_BYTES = 512 * 1024;

export const VersionNameSchema = z
  .string()
  .check(z.regex(VERSION_NAME, "a rules version name (npm run rules -- list)"));

export const RollbackRulesRequestSchema = z.strictObject({
  version: z.optional(VersionNameSchema),
});
export type RollbackRulesRequest = z.infer<typeof RollbackRulesRequestSchema>;
