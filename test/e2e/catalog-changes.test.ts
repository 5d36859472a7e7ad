import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { DEV_OPERATOR_SECRET } from "../../src/cli/dev-vars.ts";
import { runCli, STACK_FRAME } from "../helpers/cli.ts";
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

describe("npm run catalog:apply -- --remote --url: the batch through the worker's endpoint", () => {
  const scratch = mkdtempSync(join(tmpdir(), "storefront-apply-url-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const file = (name: string, content: unknown) => {
    const path = join(scratch, name);
    writeFileSync(path, JSON.stringify(content));
    return path;
  };
  const apply = (path: string, env: Record<string, string> = { OPERATOR_SECRET: DEV_OPERATOR_SECRET }) =>
    runCli("catalog-apply", [path, "--remote", "--url", inject("e2eBaseUrl")], { env });

  it("says nothing changed for a batch naming nothing, names the first mistake (exit 2), and needs the secret", async () => {
    const nothing = await apply(file("nothing.json", {}));
    expect(nothing.code, nothing.stderr).toBe(0);
    expect(nothing.stdout).toMatch(
      /^Applying .*nothing\.json through http.*\nNothing to change: catalog \S+ stays live\.\n$/,
    );

    const mistake = await apply(file("mistake.json", { delete: ["no-such-product"] }));
    expect(mistake.code).toBe(2);
    expect(mistake.stderr).toContain("mistake.json: The batch is invalid: delete[0]");
    expect(mistake.stderr).not.toMatch(STACK_FRAME);

    const secretless = await apply(file("again.json", {}), { OPERATOR_SECRET: "" });
    expect(secretless.code).toBe(2);
    expect(secretless.stderr).toContain("--url needs OPERATOR_SECRET in the environment");
  });
});
