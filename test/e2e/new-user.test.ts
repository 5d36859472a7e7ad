import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { type CheckStep, runChecks } from "../../src/cli/check.ts";
import { isPlaceholderId, placeholderBindings } from "../../src/cli/deploy-check.ts";
import { runCli } from "../helpers/cli.ts";
import { api } from "./http.ts";

/**
 * Issue 33 point 11, the small things a new user hit: `npm run token` ignored the port
 * `npm run dev -- --port` chose; `npm run check` printed nothing for a step that passed;
 * `npm run deploy` accepted wrangler.toml's placeholder ids; the README said Node 20 was enough
 * while `npm ci` printed engine warnings without a word on why.
 */

const scratch = mkdtempSync(join(tmpdir(), "storefront-new-user-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("npm run token finds the running dev server of its state, whatever its port", () => {
  it("uses the e2e server (PORT 881x, not 8787) for --persist-to its state, starting nothing", async () => {
    const state = inject("e2eStateDir");
    const env = { PORT: "" };
    const issued = await runCli("token", ["issue", "--label", "found-by-state", "--persist-to", state], {
      env,
      timeoutMs: 120_000,
    });
    expect(issued.code, issued.stderr).toBe(0);
    expect(issued.stderr).not.toMatch(/starting wrangler dev/i);
    const token = issued.stdout.trim().split("\n").at(-1)!;
    // The token works against the e2e server itself: it was issued there.
    const cart = await api("/api/v1/cart", { headers: { Authorization: `Bearer ${token}` } });
    expect(cart.status).toBe(200);
    const listed = await runCli("token", ["list", "--persist-to", state], { env, timeoutMs: 120_000 });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('label="found-by-state"');
    expect(listed.stderr).not.toMatch(/starting wrangler dev/i);
  });
});

describe("npm run check prints one line per step that passed", () => {
  const ok = (what: string): CheckStep => ({ what, command: ["node", "-e", "process.exit(0)"] });

  it("says ok for each passing step, then that all passed", () => {
    const lines: string[] = [];
    expect(runChecks([ok("first"), ok("second")], (line) => lines.push(line))).toBe(0);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^npm run check: ok {2}first \(\d+\.\d s\)$/);
    expect(lines[1]).toMatch(/^npm run check: ok {2}second \(/);
    expect(lines[2]).toBe("npm run check: all 2 checks passed.");
  });

  it("stops at the first failure, naming it, with its exit code", () => {
    const lines: string[] = [];
    const failing: CheckStep = { what: "broken", command: ["node", "-e", "process.exit(3)"] };
    expect(runChecks([ok("first"), failing, ok("never")], (line) => lines.push(line))).toBe(3);
    expect(lines.map((l) => l.replace(/\(\d+\.\d s\)/, "(t)"))).toEqual([
      "npm run check: ok  first (t)",
      "npm run check: broken failed (node -e process.exit(3)).",
    ]);
  });
});

describe("npm run deploy refuses wrangler.toml's placeholder ids", () => {
  it("finds every placeholder of the shipped wrangler.toml, with the command that creates each", () => {
    const found = placeholderBindings(readFileSync("wrangler.toml", "utf8"));
    expect(found.map((b) => [b.table, b.binding, b.create])).toEqual([
      ["kv_namespaces", "CATALOG", "npx wrangler kv namespace create CATALOG"],
      ["kv_namespaces", "TOKENS", "npx wrangler kv namespace create TOKENS"],
      ["d1_databases", "BROWSE", "npx wrangler d1 create storefront-browse"],
      ["d1_databases", "ORDERS", "npx wrangler d1 create storefront-orders"],
    ]);
    expect(isPlaceholderId("0123456789abcdef0123456789abcdef")).toBe(false);
    expect(isPlaceholderId("6f3c1a2e-7d4b-4e8a-9c1f-2b3d4e5f6a7b")).toBe(false);
  });

  it("exits 1 before deploying, naming what to create; passes once real ids are in", async () => {
    const refused = await runCli("deploy-check", []);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("placeholder ids");
    expect(refused.stderr).toContain("npx wrangler kv namespace create CATALOG");
    expect(refused.stderr).toContain("npx wrangler d1 create storefront-browse");
    expect(refused.stderr).toContain("npx wrangler d1 create storefront-orders");
    const real = readFileSync("wrangler.toml", "utf8")
      .replace('"00000000000000000000000000000001"', '"0123456789abcdef0123456789abcdef"')
      .replace('"00000000000000000000000000000002"', '"fedcba9876543210fedcba9876543210"')
      .replace('"00000000-0000-0000-0000-000000000003"', '"6f3c1a2e-7d4b-4e8a-9c1f-2b3d4e5f6a7b"')
      .replace('"00000000-0000-0000-0000-000000000004"', '"7a4d2b3f-8e5c-4f9b-8d2a-3c4e5f6a7b8c"');
    const file = join(scratch, "wrangler.toml");
    writeFileSync(file, real);
    // The catalog writer must bind the same storage (issue 45): with the shipped placeholders it does not.
    const apart = await runCli("deploy-check", ["--config", file]);
    expect(apart.code).toBe(1);
    expect(apart.stderr).toContain("writer/wrangler.toml binds other storage than");
    expect(apart.stderr).toContain('kv_namespaces CATALOG: the writer binds "00000000000000000000000000000001"');
    const writer = join(scratch, "writer.toml");
    writeFileSync(
      writer,
      readFileSync("writer/wrangler.toml", "utf8")
        .replace('"00000000000000000000000000000001"', '"0123456789abcdef0123456789abcdef"')
        .replace('"00000000-0000-0000-0000-000000000003"', '"6f3c1a2e-7d4b-4e8a-9c1f-2b3d4e5f6a7b"'),
    );
    const passed = await runCli("deploy-check", ["--config", file, "--writer", writer]);
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stderr).toBe("");
  });

  it("runs before wrangler deploy, while npm run check's dry run does not need it", () => {
    const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.predeploy).toMatch(/^node src\/cli\/deploy-check\.ts/);
    expect(readFileSync("src/cli/check.ts", "utf8")).not.toContain("deploy-check");
  });
});

describe("the README on npm ci under Node 20", () => {
  it("says the engine warnings come and why they are harmless", () => {
    const setUp = readFileSync("README.md", "utf8").split("## Set up")[1]!.split("\n## ")[0]!;
    expect(setUp).toContain("EBADENGINE");
    expect(setUp).toMatch(/Node 22 or newer/);
    expect(setUp).toMatch(/pinned Node 24/);
  });
});
