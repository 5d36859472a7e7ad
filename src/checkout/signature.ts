/**
 * Webhook signatures, checked with WebCrypto in the Worker. Both schemes the webhook accepts are
 * the same construction: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, sent as
 * `Storefront-Signature` (keyed with CHECKOUT_WEBHOOK_SECRET) or `Stripe-Signature` (keyed with
 * the endpoint's `whsec_…` STRIPE_WEBHOOK_SECRET, as Stripe signs). Several `v1` entries are
 * allowed (a secret being rolled); any one matching is enough.
 */

/** How far a signature's timestamp may be from now, either way: Stripe's default tolerance. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignatureCheck = "valid" | "malformed" | "mismatch" | "outside_window";

const encoder = new TextEncoder();

async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

function toHex(bytes: ArrayBuffer): string {
  let out = "";
  for (const b of new Uint8Array(bytes)) out += b.toString(16).padStart(2, "0");
  return out;
}

function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** The hex signature of `body` at `timestamp` (unix seconds). */
export async function signature(secret: string, timestamp: number, body: string): Promise<string> {
  return toHex(await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(`${timestamp}.${body}`)));
}

/** A complete header value for `body`, signed now (the local test payment page uses it). */
export async function signatureHeader(secret: string, body: string, now = Date.now()): Promise<string> {
  const t = Math.floor(now / 1000);
  return `t=${t},v1=${await signature(secret, t, body)}`;
}

/**
 * Checks a signature header against the raw body. The comparison is constant-time
 * (`crypto.subtle.timingSafeEqual` over the two digests), and the window is checked only once a
 * signature matched, so a stale but genuine event is told apart from a forged one.
 */
export async function checkSignature(
  header: string,
  body: string,
  secret: string,
  now = Date.now(),
): Promise<SignatureCheck> {
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(",")) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (name === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === "v1" && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (timestamp === undefined || candidates.length === 0 || candidates.length > 8) return "malformed";
  const expected = new Uint8Array(
    await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(`${timestamp}.${body}`)),
  );
  let matched = false;
  for (const candidate of candidates) {
    // Every candidate is compared (no early exit), each in constant time.
    if (crypto.subtle.timingSafeEqual(expected, fromHex(candidate))) matched = true;
  }
  if (!matched) return "mismatch";
  if (Math.abs(Math.floor(now / 1000) - timestamp) > SIGNATURE_TOLERANCE_SECONDS) return "outside_window";
  return "valid";
}
