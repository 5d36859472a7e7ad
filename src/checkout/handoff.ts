/** The operator's hand-off settings, as the worker reads them from its vars. */
export interface HandoffSettings {
  /** PAYMENT_PROVIDER: `template` uses only CHECKOUT_URL, `shopify` only the permalink; unset, the first that applies. */
  provider?: "template" | "shopify" | null;
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

/** What the cart carries beyond its lines, which a Shopify cart permalink keeps (contract 10.6). */
export interface HandoffExtras {
  note: string | null;
  attributes: Readonly<Record<string, string>>;
  /** The first applicable discount code of the cart, when the discount work gives one; else null. */
  discountCode: string | null;
}

/**
 * The permalink's query: `discount=CODE`, `note=…` and `attributes[key]=value` as Shopify reads
 * them, every key and value percent-encoded (a space is `%20`, never `+`; `&`, `=`, `#`, `[`, `]`
 * inside a value or key cannot end or nest it).
 */
function permalinkQuery(extras: HandoffExtras): string {
  const parts: string[] = [];
  if (extras.discountCode) parts.push(`discount=${encodeURIComponent(extras.discountCode)}`);
  if (extras.note) parts.push(`note=${encodeURIComponent(extras.note)}`);
  for (const [key, value] of Object.entries(extras.attributes)) {
    parts.push(`attributes[${encodeURIComponent(key)}]=${encodeURIComponent(value)}`);
  }
  return parts.length > 0 ? `?${parts.join("&")}` : "";
}

/**
 * Where a checkout hands the shopper over to payment, in this order: the CHECKOUT_URL template;
 * a Shopify cart permalink (`https://<domain>/cart/<variant_id>:<qty>,…`, with the cart's
 * discount code, note and attributes in its query) when the catalog's ids are the store's own,
 * since only then does Shopify know them (ids a CSV import derived never make one); under `npm run dev`, the local test payment page; else null (the store's own system
 * completes the checkout through the operator surface or the webhook).
 */
export function handoffUrl(
  settings: HandoffSettings,
  checkoutId: string,
  lines: readonly { variant_id: string; quantity: number }[],
  extras: HandoffExtras = { note: null, attributes: {}, discountCode: null },
): string | null {
  const template = settings.provider === "shopify" ? "" : settings.checkoutUrl.trim();
  if (template !== "") return template.replaceAll("{checkout_id}", encodeURIComponent(checkoutId));
  const domain = settings.provider === "template" ? "" : settings.shopifyDomain.trim().toLowerCase();
  if (settings.storeIds && DOMAIN.test(domain)) {
    const items = lines.map((line) => `${line.variant_id}:${line.quantity}`).join(",");
    return `https://${domain}/cart/${items}${permalinkQuery(extras)}`;
  }
  if (settings.devPayBase) return `${settings.devPayBase}${checkoutId}`;
  return null;
}
