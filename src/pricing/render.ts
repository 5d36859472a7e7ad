import type * as z from "zod/mini";
import { fromMinor, type Money } from "../money.ts";
import type {
  AppliedDiscountSchema,
  CostWire,
  DiscountAllocationSchema,
  DiscountCodeResultSchema,
  ShippingOptionSchema,
} from "./api.ts";
import type { Cost, ShippingOption } from "./types.ts";

type Wire<T extends z.ZodMiniType> = z.infer<T>;

/** A cost as the API answers it: every amount Money with the currency's digits. */
export interface RenderedCost {
  readonly cost: CostWire;
  readonly discounts: Wire<typeof AppliedDiscountSchema>[];
  readonly discount_codes: Wire<typeof DiscountCodeResultSchema>[];
  readonly shipping_options: Wire<typeof ShippingOptionSchema>[];
  readonly shipping_option: Wire<typeof ShippingOptionSchema> | null;
  /** Per input line (same order as `Cost.lines`): its allocations, and its tax for the order. */
  readonly lines: {
    readonly id: string;
    readonly discount_allocations: Wire<typeof DiscountAllocationSchema>[];
    readonly tax: Money | null;
  }[];
}

/** The one place a cost becomes wire Money: the cart, the checkout and the order render through it. */
export function renderCost(cost: Cost): RenderedCost {
  const money = (minor: number) => fromMinor(minor, cost.currency);
  const maybe = (minor: number | null) => (minor === null ? null : money(minor));
  const option = (o: ShippingOption) => ({ id: o.id, title: o.title, price: money(o.price) });
  return {
    cost: {
      subtotal: money(cost.subtotal),
      discount_total: money(cost.discount_total),
      shipping: maybe(cost.shipping),
      tax: maybe(cost.tax),
      total: money(cost.total),
      tax_included: cost.tax_included,
      tax_calculated_at: cost.tax_calculated_at,
    },
    discounts: cost.discounts.map((d) => ({ id: d.id, title: d.title, code: d.code, amount: money(d.amount) })),
    discount_codes: cost.discount_codes.map((c) => ({ ...c })),
    shipping_options: cost.shipping_options.map(option),
    shipping_option: cost.shipping_option ? option(cost.shipping_option) : null,
    lines: cost.lines.map((line) => ({
      id: line.id,
      discount_allocations: line.discount_allocations.map((a) => ({
        discount_id: a.discount_id,
        amount: money(a.amount),
      })),
      tax: maybe(line.tax),
    })),
  };
}
