/** The operator's hand-off settings, as the worker reads them from its vars. */
export interface HandoffSettings {
  /** CHECKOUT_URL: a template with `{checkout_id}`, e.g. `https://pay.example.com/c/{checkout_id}`. */
  checkoutUrl: string;
  /** SHOPIFY_STORE_DOMAIN: the store's own domain (`shop.example.com` or `example.myshopify.com`). */
  shopifyDomain: string;
  /** Whether the live catalog's variant ids are the store's own Shopify ids (imported from JSON). */
  storeIds: boolean;
  /** Under `npm run dev` only: the local test payment page's base (`http://localhost:8787/dev/pay/`). */
  devPayBase: string | null;
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * Where a checkout hands the shopper over to payment, in this order: the CHECKOUT_URL template;
 * a Shopify cart permalink (`https://<domain>/cart/<variant_id>:<qty>,…`) when the catalog's ids
 * are the store's own, since only then does Shopify know them (ids a CSV import derived never
 * make one); under `npm run dev`, the local test payment page; else null (the store's own system
 * completes the checkout through the operator surface or the webhook).
 */
export function handoffUrl(
  settings: HandoffSettings,
  checkoutId: string,
  lines: readonly { variant_id: string; quantity: number }[],
): string | null {
  const template = settings.checkoutUrl.trim();
  if (template !== "") return template.replaceAll("{checkout_id}", encodeURIComponent(checkoutId));
  const domain = settings.shopifyDomain.trim().toLowerCase();
  if (settings.storeIds && DOMAIN.test(domain)) {
    const items = lines.map((line) => `${line.variant_id}:${line.quantity}`).join(",");
    return `https://${domain}/cart/${items}`;
  }
  if (settings.devPayBase) return `${settings.devPayBase}${checkoutId}`;
  return null;
}
