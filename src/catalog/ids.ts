/**
 * Variant identifiers: `<digits>` in bodies and answers, `gid://shopify/ProductVariant/<digits>`
 * accepted wherever a variant id is read and carried by every variant as its `gid`.
 */
export const VARIANT_GID_PREFIX = "gid://shopify/ProductVariant/";

/** The gid form of a variant id. */
export function variantGid(id: string): string {
  return `${VARIANT_GID_PREFIX}${id}`;
}

/** The digits of a variant id given in either form (`123`, `gid://shopify/ProductVariant/123`). */
export function variantDigits(id: string): string {
  return id.startsWith(VARIANT_GID_PREFIX) ? id.slice(VARIANT_GID_PREFIX.length) : id;
}
