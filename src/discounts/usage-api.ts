import * as z from "zod/mini";

/**
 * The operator's view of discount uses (contract 10.3: `GET /operator/discounts`): the schemas
 * the reference, the CLI and the tests read. The Worker builds the answer with typed literals
 * (src/routes/operator-discounts.ts), so these descriptions stay out of its bundle.
 *
 * Built by a pure arrow function called at once: the Worker never parses this answer, so the
 * bundler leaves it out (docs/decisions/0009-schema-docs-out-of-the-worker.md).
 */
export const DiscountUsageCountsSchema = /* @__PURE__ */ (() =>
  z.object({
    committed: z.int().check(z.minimum(0)),
    held: z.int().check(z.minimum(0)),
    remaining: z.nullable(z.int().check(z.minimum(0))),
  }))();

export const OperatorDiscountSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("discount"),
    id: z.string(),
    title: z.string(),
    code: z.nullable(z.string()),
    kind: z.enum(["percentage", "fixed_amount", "free_shipping", "buy_x_get_y"]),
    usage_limit: z.nullable(z.int().check(z.minimum(1))),
    once_per_buyer: z.boolean(),
    usage: DiscountUsageCountsSchema,
  }))();
export type OperatorDiscount = z.infer<typeof OperatorDiscountSchema>;

export const OperatorDiscountListSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("list"),
    count: z.int().check(z.minimum(0)),
    data: z.array(OperatorDiscountSchema),
    has_more: z.literal(false),
  }))();
export type OperatorDiscountList = z.infer<typeof OperatorDiscountListSchema>;
