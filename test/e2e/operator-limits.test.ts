import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CliRun, runCli, STACK_FRAME } from "../helpers/cli.ts";

/**
 * Issue 33 point 4, the limits an operator can trip over, as the operator meets them:
 * `--shard-products` too small for the catalog exits 2 naming the limit (600 shards of a
 * 600-product catalog made every browse request exceed the per-request limits decision 0007
 * cites), and a read-only state directory prints one line naming the path (it printed 16 stack
 * traces from workerd).
 */

const scratch = mkdtempSync(join(tmpdir(), "storefront-limits-"));
afterAll(() => {
  spawnSync("chmod", ["-R", "u+w", scratch]);
  rmSync(scratch, { recursive: true, force: true });
});

/** The lines a run printed on stderr, blank ones aside. */
const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "");

describe("catalog:publish --shard-products", () => {
  it("exits 2 naming the limit when the shards would be more than one browse request can fan out to", async () => {
    const persist = join(scratch, "shards");
    const run = await runCli("catalog-publish", ["--persist-to", persist, "--shard-products", "1"], {
      timeoutMs: 120_000,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(lines(run.stderr)[0]).toMatch(
      /--shard-products 1 cuts 28 products into 28 browse shards, over the limit of 24/,
    );
    expect(run.stderr).toContain("50 subrequests per request");
    expect(run.stderr).toContain("Give --shard-products 2 or more");
    expect(run.stdout).not.toMatch(/Published|entries written/);
  }, 150_000);
});

/** `node src/cli/<name>.ts …args` with `dir` read-only: a read-only bind mount in a user namespace, else (not root) file modes. */
function runReadOnly(dir: string, name: string, args: string[]): Promise<CliRun> | null {
  const unshare = spawnSync("unshare", ["-rm", "true"]);
  if (unshare.status === 0) {
    const script = `mount --bind -o ro "$1" "$1" && shift && exec "$@"`;
    return collect(
      spawn("unshare", ["-rm", "sh", "-c", script, "sh", dir, process.execPath, `src/cli/${name}.ts`, ...args], {
        env: { ...process.env, FORCE_COLOR: "0" },
      }),
    );
  }
  if (process.getuid?.() === 0) return null;
  spawnSync("chmod", ["-R", "a-w", dir]);
  return runCli(name, args, { timeoutMs: 120_000 });
}

function collect(child: ReturnType<typeof spawn>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(process.platform !== "linux")("a read-only state directory", () => {
  it("is one line naming the path, for a publish and for --list, never workerd's stack traces", async () => {
    const persist = join(scratch, "readonly");
    const first = await runCli("catalog-publish", ["--persist-to", persist], { timeoutMs: 120_000 });
    expect(first.code, first.stderr).toBe(0);
    for (const [name, args] of [
      ["catalog-publish", ["--persist-to", persist, "--version", "never-written", "seed/catalog.json"]],
      ["catalog-rollback", ["--persist-to", persist, "--list"]],
    ] as const) {
      const run = runReadOnly(persist, name, [...args]);
      if (!run) return; // root without user namespaces: no way to make a directory read-only here
      const result = await run;
      expect(result.code, result.stderr).toBe(1);
      expect(lines(result.stderr)).toEqual([
        expect.stringMatching(new RegExp(`^Local state ${persist}\\S* is not writable \\(`)),
      ]);
      expect(result.stderr).not.toMatch(STACK_FRAME);
      expect(result.stderr + result.stdout).not.toMatch(/ffi\.rs|os error|\[mf:error\]/);
    }
    chmodSync(persist, 0o755);
  }, 200_000);
});
