import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ErrorResponseSchema } from "../../src/http/errors.ts";
import { addLine, call, cartCall, issueToken, operator, seedVariants, type SeedVariants } from "../helpers/cart.ts";
import { API } from "../helpers/worker.ts";

/** Issue 42, point 18: the small things a new storefront developer met. */
let seed: SeedVariants;
beforeAll(async () => {
  seed = await seedVariants();
});

async function refusal(res: Response): Promise<{ code?: string; message: string; param?: string | undefined }> {
  expect(res.status).toBe(400);
  return ErrorResponseSchema.parse(await res.json()).error;
}

describe("Vary: Origin", () => {
  it("is sent once on every cart and checkout answer (POST /checkouts said `Origin, Origin`)", async () => {
    const { token } = await issueToken("vary");
    expect((await addLine(token, seed.available[0]!.id, 1)).status).toBe(200);
    const origin = { Origin: "http://localhost:3000" };
    const answers = [
      await cartCall(token, "/checkouts", { method: "POST", headers: origin }),
      await cartCall(token, `/checkouts/chk_${"0".repeat(64)}${"A".repeat(16)}`, { headers: origin }),
      await cartCall(token, "/cart", { headers: origin }),
      await cartCall(token, "/cart/lines", { method: "POST", body: {}, headers: origin }),
      await call("/api/v1/carts", { method: "POST", headers: { ...origin, "CF-Connecting-IP": "198.51.100.77" } }),
    ];
    for (const res of answers) {
      const vary = (res.headers.get("vary") ?? "").split(",").map((v) => v.trim().toLowerCase());
      expect(
        vary.filter((v) => v === "origin"),
        `${res.url} ${res.status}`,
      ).toHaveLength(1);
    }
  });
});

describe("the reference's auth panel", () => {
  it("says where shopper tokens come from (POST /carts), not only operator-issued tokens", async () => {
    const doc = (await (await exports.default.fetch(`${API}/openapi.json`)).json()) as {
      components: { securitySchemes: { bearerAuth: { description: string } } };
    };
    const { description } = doc.components.securitySchemes.bearerAuth;
    expect(description).toContain("POST /carts");
    expect(description).not.toMatch(/^A customer token issued by the operator/);
  });
});

describe("400s that say exactly what is wrong, with param", () => {
  it("return_url: null", async () => {
    const { token } = await issueToken("null url");
    expect((await addLine(token, seed.available[0]!.id, 1)).status).toBe(200);
    const error = await refusal(await cartCall(token, "/checkouts", { method: "POST", body: { return_url: null } }));
    expect(error).toMatchObject({ code: "parameter_invalid", param: "return_url" });
    expect(error.message).toBe(
      "Invalid return_url: an absolute https URL (or http://localhost or http://127.0.0.1 under npm run dev), " +
        "of at most 2048 characters (got null).",
    );
  });

  it("a 256-character payment_reference", async () => {
    const id = `chk_${"0".repeat(64)}${"A".repeat(16)}`;
    const error = await refusal(
      await operator(`/checkouts/${id}/complete`, {
        method: "POST",
        body: JSON.stringify({ payment_reference: "p".repeat(256) }),
      }),
    );
    expect(error).toMatchObject({
      code: "parameter_invalid",
      param: "payment_reference",
      message: "Invalid payment_reference: text of 1 to 255 characters.",
    });
  });

  it("set: -1 in a stock change", async () => {
    const error = await refusal(
      await operator("/stock", { method: "POST", body: JSON.stringify({ changes: [{ variant_id: "1", set: -1 }] }) }),
    );
    expect(error).toMatchObject({
      code: "parameter_invalid",
      param: "changes.0.set",
      message: "Invalid changes.0.set: an integer from 0 to 1000000000.",
    });
  });
});
