import { fromMinor } from "../money.ts";
import type { Checkout } from "./api.ts";
import type { CheckoutRecord } from "./checkout-rows.ts";
import { costJson, frozenCost } from "./cost.ts";

/** The contract's Checkout from its record, as JSON text. All sums in integer minor units. */
export function checkoutJson(record: CheckoutRecord): string {
  const { currency } = record.content;
  let subtotal = 0;
  let quantity = 0;
  const lines = record.content.lines.map((line) => {
    subtotal += line.unit_price_minor * line.quantity;
    quantity += line.quantity;
    return {
      object: "checkout_line" as const,
      id: line.id,
      variant_id: line.variant_id,
      handle: line.handle,
      title: line.title,
      variant_title: line.variant_title,
      quantity: line.quantity,
      unit_price: fromMinor(line.unit_price_minor, currency),
      line_total: fromMinor(line.unit_price_minor * line.quantity, currency),
      attributes: line.attributes,
    };
  });
  const checkout: Checkout = {
    object: "checkout",
    id: record.id,
    status: record.status,
    lines,
    total_quantity: quantity,
    subtotal: fromMinor(subtotal, currency),
    cost: costJson(frozenCost(record.content), currency),
    currency,
    note: record.content.note,
    attributes: record.content.attributes,
    return_url: record.return_url,
    // Only an open checkout can still be paid through its hand-off.
    url: record.status === "open" ? record.url : null,
    order_id: record.order_id,
    created_at: new Date(record.created_at).toISOString(),
    expires_at: new Date(record.expires_at).toISOString(),
  };
  return JSON.stringify(checkout);
}
