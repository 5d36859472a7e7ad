import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type DevServer, runDevServer } from "../helpers/dev-server.ts";
import { runCli, STACK_FRAME } from "../helpers/cli.ts";
import { firstFreePort } from "../helpers/ports.ts";

/**
 * Releases that switch at a set second through the real tools and `npm run dev` (issue 45, point 5),
 * on a server and state of this file's own (a release changes the live catalog, which the shared e2e
 * server's other files read): `catalog:publish --at` writes the version and sets the catalog writer's
 * release clock, `catalog:rollback --list` shows it scheduled, the pointer switches at its second and
 * not before; a release due while the server was stopped goes live when it starts again (workerd
 * keeps the clock's alarm in the state); `catalog:apply --at` then `catalog:rollback --cancel`.
 */

const PORTS = [8890, 8891, 8892, 8893, 8894];
const scratch = mkdtempSync(join(tmpdir(), "storefront-release-"));
const state = join(scratch, "state");
let server: DevServer | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** The seed with every price raised by `cents`, written to a file of its own. */
function shiftedSeedFile(cents: number): string {
  const catalog = JSON.parse(readFileSync("seed/catalog.json", "utf8")) as {
    products: { variants: { price: string }[] }[];
  };
  for (const product of catalog.products)
    for (const variant of product.variants)
      variant.price = ((Math.round(Number(variant.price) * 100) + cents) / 100).toFixed(2);
  const path = join(scratch, `seed-${cents}.json`);
  writeFileSync(path, JSON.stringify(catalog));
  return path;
}

async function liveVersion(): Promise<string | null> {
  const res = await fetch(`${server!.baseUrl}/api/v1/products/canvas-market-tote`);
  await res.body?.cancel();
  return res.headers.get("x-catalog-version");
}

const inSeconds = (s: number) => new Date(Math.ceil((Date.now() + s * 1000) / 1000) * 1000).toISOString();
const tool = (name: string, args: string[]) => runCli(name, [...args, "--persist-to", state], { timeoutMs: 120_000 });
const scheduledVersion = (stdout: string) => /Scheduled (?:the batch as )?catalog (\S+)/.exec(stdout)?.[1];

describe("catalog:publish --at and catalog:apply --at through npm run dev", () => {
  it("schedules a publish, lists it, and switches it at its second, not before", async () => {
    const port = await firstFreePort("127.0.0.1", PORTS);
    server = await runDevServer(state, port, join(scratch, "dev.log"));
    const before = await liveVersion();
    const at = inSeconds(12);
    const run = await tool("catalog-publish", [shiftedSeedFile(500), "--at", at]);
    expect(run.code, run.stderr).toBe(0);
    const version = scheduledVersion(run.stdout);
    expect(run.stdout).toContain(`Scheduled catalog ${version} to go live at ${at}`);
    expect(run.stdout).toMatch(/The release clock of http:\/\/\S+ is set for/);
    // Its stock levels apply once it is live, and it says so.
    expect(run.stdout).toMatch(/^Once it goes live: Live stock: /m);

    const list = await tool("catalog-rollback", ["--list"]);
    expect(list.stdout).toMatch(new RegExp(`${version}\\s+28\\s+scheduled .*\\[release at ${at}\\]`));
    expect(await liveVersion()).toBe(before);

    let seenAt = 0;
    while (seenAt === 0 && Date.now() < Date.parse(at) + 20_000) {
      const now = Date.now();
      if ((await liveVersion()) === version) seenAt = now;
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(seenAt, "the release went live").toBeGreaterThan(0);
    expect(seenAt).toBeGreaterThanOrEqual(Date.parse(at));
    const after = await tool("catalog-rollback", ["--list"]);
    expect(after.stdout).toMatch(new RegExp(`${version}\\s+28\\s+released`));
    expect(after.stdout).toMatch(new RegExp(`${version}\\s+28\\s+live`));
  }, 240_000);

  it("releases what fell due while the server was stopped as soon as it starts again", async () => {
    const at = inSeconds(6);
    const run = await tool("catalog-publish", [shiftedSeedFile(700), "--at", at]);
    expect(run.code, run.stderr).toBe(0);
    const version = scheduledVersion(run.stdout);
    await server!.stop();
    while (Date.now() < Date.parse(at) + 1_000) await new Promise((resolve) => setTimeout(resolve, 250));
    server = await runDevServer(state, await firstFreePort("127.0.0.1", PORTS), join(scratch, "dev.log"));
    let live = await liveVersion();
    for (let i = 0; i < 50 && live !== version; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      live = await liveVersion();
    }
    expect(live).toBe(version);
  }, 240_000);

  it("schedules a batch and cancels it: listed canceled, its version unreadable, the live catalog unchanged", async () => {
    const live = await liveVersion();
    const batch = join(scratch, "batch.json");
    writeFileSync(batch, JSON.stringify({ delete: ["canvas-market-tote"] }));
    const run = await tool("catalog-apply", [batch, "--at", inSeconds(3600)]);
    expect(run.code, run.stderr).toBe(0);
    const version = scheduledVersion(run.stdout);
    expect(run.stdout).toContain(`Scheduled the batch as catalog ${version}`);
    const preview = await fetch(
      `${server!.baseUrl}/api/v1/operator/catalog/versions/${version}/products/leather-card-holder-tan`,
      { headers: { Authorization: "Bearer dev-operator-secret" } },
    );
    expect(preview.status).toBe(200);
    expect(preview.headers.get("x-catalog-version")).toBe(version);
    await preview.body?.cancel();

    const cancel = await tool("catalog-rollback", ["--cancel", String(version)]);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toContain(`Canceled the release of catalog ${version}`);
    const list = await tool("catalog-rollback", ["--list"]);
    expect(list.stdout).toMatch(new RegExp(`${version}\\s+27\\s+canceled .*\\[release at .*: canceled by `));
    const gone = await fetch(
      `${server!.baseUrl}/api/v1/operator/catalog/versions/${version}/products/leather-card-holder-tan`,
      { headers: { Authorization: "Bearer dev-operator-secret" } },
    );
    expect(gone.status).toBe(404);
    await gone.body?.cancel();
    expect(await liveVersion()).toBe(live);

    const again = await tool("catalog-rollback", ["--cancel", String(version)]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`No release of catalog ${version} is scheduled`);
    expect(again.stderr).not.toMatch(STACK_FRAME);
  }, 240_000);

  it("schedules a batch through the worker's endpoint (catalog:apply --remote --url --at)", async () => {
    const batch = join(scratch, "url-batch.json");
    writeFileSync(batch, JSON.stringify({ delete: ["leather-card-holder-tan"] }));
    const at = inSeconds(3600);
    const run = await runCli("catalog-apply", [batch, "--remote", "--url", server!.baseUrl, "--at", at], {
      env: { OPERATOR_SECRET: "dev-operator-secret" },
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const version = scheduledVersion(run.stdout);
    expect(run.stdout).toContain(`to go live at ${new Date(at).toISOString()} through the catalog writer`);
    const list = await tool("catalog-rollback", ["--list"]);
    expect(list.stdout).toMatch(new RegExp(`batch\\s+${version}\\s+27\\s+scheduled .*by operator API`));
    const cancel = await tool("catalog-rollback", ["--cancel", String(version)]);
    expect(cancel.code, cancel.stderr).toBe(0);
  }, 240_000);

  it("refuses a time that has passed, has no zone, or is more than a year ahead (exit 2), writing nothing", async () => {
    const file = shiftedSeedFile(900);
    for (const [at, said] of [
      ["2020-01-01T00:00:00Z", "has passed"],
      ["2030-01-01T09:00:00", "takes a time with its zone"],
      ["2099-01-01T09:00:00Z", "more than a year ahead"],
    ] as const) {
      const run = await tool("catalog-publish", [file, "--at", at]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(said);
    }
    // --remote sets the deployed worker's clock: without its URL and secret, refused before writing.
    const remote = await runCli("catalog-publish", [file, "--remote", "--at", inSeconds(3600)], {
      env: { STOREFRONT_URL: "", OPERATOR_SECRET: "" },
    });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain("set STOREFRONT_URL (https://<your worker>) and OPERATOR_SECRET");
    const list = await tool("catalog-rollback", ["--list"]);
    expect(list.stdout).not.toContain("seed-900");
  }, 240_000);
});
