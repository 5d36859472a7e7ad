import { describe, expect, it } from "vitest";
import { operator } from "../helpers/cart.ts";

/** POST /operator/catalog/changes before anything is published (this file's storage has no catalog). */
describe("POST /operator/catalog/changes with no catalog", () => {
  it("answers 503 catalog_unavailable with Retry-After: a batch derives from the live version", async () => {
    const res = await operator("/catalog/changes", { method: "POST", body: JSON.stringify({ delete: ["x"] }) });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("30");
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({
      type: "api_error",
      code: "catalog_unavailable",
    });
  });
});
