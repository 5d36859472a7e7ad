import * as z from "zod/mini";

/**
 * The catalog's fields that the Worker itself validates (handles in paths and bodies, variant ids,
 * option names, a tracked variant's policy): apart from the source catalog format (schema.ts,
 * which re-exports them), so the Worker bundle does not carry that whole format and its checks.
 */

const HANDLE_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Lower case words joined by hyphens, at most 255 characters. */
export const HandleSchema = z
  .string()
  .check(z.maxLength(255), z.regex(HANDLE_PATTERN, "a handle: lower case words joined by hyphens"));

/**
 * A handle by the same rules, without the Handle component's example: for paging cursors, whose
 * example the reference's "Test Request" would send (`starting_after` and `ending_before` both
 * set to it: a 400 on first use), and for path parameters that need an example of their own.
 */
export function handleWithout() {
  return z.string().check(z.maxLength(255), z.regex(HANDLE_PATTERN, "a handle: lower case words joined by hyphens"));
}

/** Tests a path segment before any storage is touched. */
export function isHandle(value: string): boolean {
  return HandleSchema.safeParse(value).success;
}

export const ProductGidSchema = /* @__PURE__ */ (() =>
  z.string().check(z.regex(/^gid:\/\/shopify\/Product\/\d{1,20}$/, "gid://shopify/Product/<digits>")))();
export const VariantIdSchema = z.string().check(z.regex(/^\d{1,20}$/, "a variant id: digits"));

/**
 * An option's name in the API: the source spelling in lower case with spaces as hyphens
 * (`Frame style` -> `frame-style`). The source spelling is kept as the option's `label`. An
 * option Shopify allows to be named `Title` would collide with the variants endpoint's `title`
 * selector, so it is served as `title-1` (label `Title`).
 */
export function optionApiName(name: string): string {
  const api = name.trim().toLowerCase().replace(/\s+/g, "-");
  return api === "title" ? "title-1" : api;
}

/** The most units a level may hold either way (a file's quantity, a `set`, an `adjust`'s result). */
export const MAX_STOCK_LEVEL = 1_000_000_000;

/** `deny`: a tracked variant is sold out once nothing is left. `continue`: it keeps selling at 0. */
export const InventoryPolicySchema = /* @__PURE__ */ (() => z.enum(["deny", "continue"]))();
export type InventoryPolicy = z.infer<typeof InventoryPolicySchema>;
