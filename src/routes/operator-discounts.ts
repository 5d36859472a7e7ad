import { Hono } from "../http/hono.ts";
import { CatalogStore, pointerTtlMs } from "../catalog/store.ts";
import type { OperatorDiscount, OperatorDiscountList } from "../discounts/usage-api.ts";
import { counted, discountUses } from "../discounts/usage.ts";
import type { AppEnv } from "../http/app-env.ts";
import { catalogUnavailable } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { requireOperator } from "../http/operator-auth.ts";
import { validQuery } from "../http/validate.ts";
import { DEFAULT_CURRENCY } from "../money.ts";
import { NoQuerySchema } from "../catalog/api.ts";
import { describe } from "../openapi/describe.ts";
import { RulesStore } from "../rules/store.ts";

/**
 * The live rules' discounts with their uses (contract 10.3): each counted discount's usage object
 * asked side by side; one without a limit or once_per_buyer counts nothing and is answered 0.
 */
export const operatorDiscounts = new Hono<AppEnv>()
  .use("*", noStore)
  .use("*", requireOperator)
  .get("/", describe("listDiscounts"), validQuery(NoQuerySchema), async (c) => {
    const options = { pointerTtlMs: pointerTtlMs(c.env.CATALOG_POINTER_TTL_MS) };
    const meta = await new CatalogStore(c.env.CATALOG, options).currentMeta();
    if (!meta) throw catalogUnavailable();
    const live = await new RulesStore(c.env.CATALOG, options).live(meta.currency ?? DEFAULT_CURRENCY);
    const uses = discountUses(c.env);
    const data = await Promise.all(
      (live?.rules.discounts ?? []).map(async (d): Promise<OperatorDiscount> => {
        const { committed, held } = counted(d) ? await uses.counts(d.id) : { committed: 0, held: 0 };
        return {
          object: "discount",
          id: d.id,
          title: d.title,
          code: d.code,
          kind: d.kind,
          usage_limit: d.usage_limit,
          once_per_buyer: d.once_per_buyer,
          usage: {
            committed,
            held,
            remaining: d.usage_limit === null ? null : Math.max(0, d.usage_limit - committed - held),
          },
        };
      }),
    );
    const list: OperatorDiscountList = { object: "list", count: data.length, data, has_more: false };
    return c.json(list, 200);
  });
