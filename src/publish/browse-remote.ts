import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowseTarget } from "./browse-index.ts";
import type { SqlQuery } from "./lock.ts";

/**
 * The browse index of a remote publish: each group of statements goes to the BROWSE database of
 * wrangler.toml with `wrangler d1 execute BROWSE --remote --file`, printed before it runs (and
 * only printed with `dryRun`). Node only (operator CLI).
 */
export function remoteBrowseTarget(opts: { dryRun?: boolean; log?: (line: string) => void } = {}): BrowseTarget {
  const log = opts.log ?? console.log;
  const wrangler = (args: string[]): string => {
    const full = ["wrangler", "d1", "execute", "BROWSE", "--remote", "--yes", ...args];
    log(`$ npx ${full.join(" ")}`);
    if (opts.dryRun) return "[]";
    const run = spawnSync("npx", full, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, WRANGLER_SEND_METRICS: "false" } });
    if (run.status !== 0) throw new Error(`wrangler d1 execute failed (exit ${run.status}).`);
    return run.stdout;
  };
  return {
    async run(statements) {
      const dir = mkdtempSync(join(tmpdir(), "browse-"));
      try {
        const file = join(dir, "batch.sql");
        writeFileSync(file, `${statements.join(";\n")};\n`);
        wrangler(["--file", file]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    async tables() {
      const out = wrangler(["--json", "--command", "SELECT name FROM sqlite_master WHERE type IN ('table', 'index')"]);
      const parsed = JSON.parse(out) as { results?: { name: string }[] }[];
      return parsed.flatMap((r) => r.results ?? []).map((r) => r.name);
    },
  };
}

/**
 * One SQL statement against the remote BROWSE database, its rows returned: what the publish
 * lock (lock.ts `sqlLock`) runs, printed before it runs like every remote command.
 */
export function remoteD1Query(opts: { log?: (line: string) => void } = {}): SqlQuery {
  const log = opts.log ?? console.log;
  return async (sql) => {
    const full = ["wrangler", "d1", "execute", "BROWSE", "--remote", "--yes", "--json", "--command", sql];
    log(`$ npx ${full.slice(0, -1).join(" ")} "${sql}"`);
    const run = spawnSync("npx", full, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, WRANGLER_SEND_METRICS: "false" } });
    if (run.status !== 0) throw new Error(`wrangler d1 execute failed (exit ${run.status}).`);
    const parsed = JSON.parse(run.stdout) as { results?: Record<string, unknown>[] }[];
    return parsed.flatMap((r) => r.results ?? []);
  };
}
