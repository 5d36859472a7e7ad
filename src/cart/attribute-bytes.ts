import { MAX_CART_ATTRIBUTE_BYTES } from "./api.ts";
import type { CartFailure } from "./failure.ts";
import { NO_ATTRIBUTES } from "./view.ts";

const utf8 = new TextEncoder();

/** UTF-8 bytes of a text: what the cart's attribute budget counts, whatever JSON escaping a client used. */
export function textBytes(text: string | null | undefined): number {
  return text ? utf8.encode(text).length : 0;
}

/** UTF-8 bytes of every key and value of attributes as stored (canonical JSON). */
export function attributeBytes(stored: string): number {
  if (stored === NO_ATTRIBUTES) return 0;
  let bytes = 0;
  for (const [key, value] of Object.entries(JSON.parse(stored) as Record<string, string>))
    bytes += textBytes(key) + textBytes(value);
  return bytes;
}

/**
 * The refusal of a write that would take the cart's note and attributes (its own and its lines')
 * past {@link MAX_CART_ATTRIBUTE_BYTES}, or undefined when `bytes` is within it.
 */
export function overAttributeBudget(bytes: number, param: string): CartFailure | undefined {
  if (bytes <= MAX_CART_ATTRIBUTE_BYTES) return undefined;
  return {
    code: "attributes_too_large",
    message:
      `A cart's note and attributes, its lines' attributes included, hold at most ` +
      `${MAX_CART_ATTRIBUTE_BYTES.toLocaleString("en-US")} bytes of UTF-8 together; this write would make them ` +
      `${bytes.toLocaleString("en-US")}.`,
    param,
  };
}
