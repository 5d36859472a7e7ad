import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { checkSignature, signature, signatureHeader } from "../../src/checkout/signature.ts";
import { WORKED_BODY, WORKED_SIGNATURE } from "../../src/openapi/guide.ts";

const SECRET = "dev-checkout-webhook-secret";
const T = 1767225600;

describe("webhook signatures", () => {
  it("computes the reference's worked example", async () => {
    expect(await signature(SECRET, T, WORKED_BODY)).toBe(WORKED_SIGNATURE);
    expect(await checkSignature(`t=${T},v1=${WORKED_SIGNATURE}`, WORKED_BODY, SECRET, T * 1000)).toBe("valid");
  });

  it("tells malformed, wrong and stale signatures apart", async () => {
    const now = T * 1000;
    for (const header of ["", "t=1", `v1=${WORKED_SIGNATURE}`, `t=abc,v1=${WORKED_SIGNATURE}`, `t=${T},v1=XYZ`]) {
      expect(await checkSignature(header, WORKED_BODY, SECRET, now)).toBe("malformed");
    }
    expect(await checkSignature(`t=${T},v1=${"0".repeat(64)}`, WORKED_BODY, SECRET, now)).toBe("mismatch");
    expect(await checkSignature(`t=${T},v1=${WORKED_SIGNATURE}`, `${WORKED_BODY} `, SECRET, now)).toBe("mismatch");
    expect(await checkSignature(`t=${T},v1=${WORKED_SIGNATURE}`, WORKED_BODY, "another-secret-value", now)).toBe(
      "mismatch",
    );
    expect(await checkSignature(`t=${T},v1=${WORKED_SIGNATURE}`, WORKED_BODY, SECRET, now + 301_000)).toBe(
      "outside_window",
    );
    expect(await checkSignature(`t=${T},v1=${WORKED_SIGNATURE}`, WORKED_BODY, SECRET, now - 301_000)).toBe(
      "outside_window",
    );
    expect(await checkSignature(`t=${T},v1=${WORKED_SIGNATURE}`, WORKED_BODY, SECRET, now + 300_000)).toBe("valid");
  });

  it("accepts any of several v1 signatures (a secret being rolled), as Stripe sends them", async () => {
    const header = `t=${T},v1=${"f".repeat(64)},v1=${WORKED_SIGNATURE},v0=${"0".repeat(64)}`;
    expect(await checkSignature(header, WORKED_BODY, SECRET, T * 1000)).toBe("valid");
  });

  it("speaks Stripe's scheme: the stripe package accepts our header and we accept its", async () => {
    const secret = "whsec_test_0123456789abcdefghijklmnopqrstuv";
    const stripe = new Stripe("sk_test_unused");
    const provider = Stripe.createSubtleCryptoProvider();
    const ours = await signatureHeader(secret, WORKED_BODY);
    await expect(stripe.webhooks.constructEventAsync(WORKED_BODY, ours, secret, 300, provider)).resolves.toBeDefined();
    const theirs = await stripe.webhooks.generateTestHeaderStringAsync({
      payload: WORKED_BODY,
      secret,
      cryptoProvider: provider,
    });
    expect(await checkSignature(theirs, WORKED_BODY, secret)).toBe("valid");
  });
});
