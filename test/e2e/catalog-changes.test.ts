import { describe, expect, it } from "vitest";
import { DEV_OPERATOR_SECRET } from "../../src/cli/dev-vars.ts";
import { api } from "./http.ts";

/**
 * POST /operator/catalog/changes against the real `npm run dev` (issue 45 point 1): the storefront
 * and the catalog writer run as two Workers in one wrangler dev (src/cli/dev.ts), the batch crossing
 * their service binding, on the same local state. Other e2e files share this server, so the batches
 * here change nothing: one that names nothing answers the live version, one with a mistake is
 * refused by the writer's validation.
 */

function changes(batch: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return api("/api/v1/operator/catalog/changes", {
    method: "POST",
    headers: { Authorization: `Bearer ${DEV_OPERATOR_SECRET}`, "Content-Type": "application/json", ...headers },
    body: JSON.stringify(batch),
  });
}

describe("catalog change batches through npm run dev", () => {
  it("reach the catalog writer Worker: the live version for a batch naming nothing, 400 for a mistake", async () => {
    const live = (await api("/api/v1/products?limit=1")).headers.get("x-catalog-version");
    expect(live).toEqual(expect.any(String));
    const nothing = await changes({}, { "Idempotency-Key": `e2e-${Date.now()}` });
    expect(nothing.status).toBe(200);
    expect(await nothing.json()).toEqual({
      object: "catalog_version",
      version: live,
      previous_version: live,
      changed: { products: 0, collections: 0 },
    });
    const mistake = await changes({ delete: ["no-such-product"] });
    expect(mistake.status).toBe(400);
    expect(((await mistake.json()) as { error: unknown }).error).toMatchObject({
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "delete.0",
    });
  });
});
