import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KvEntry } from "./build.ts";
import { HISTORY_KEY, type HistoryEntry, type Pointer, POINTER_KEY } from "../catalog/layout.ts";
import type { CatalogKvTarget } from "./publish.ts";

/** `wrangler kv bulk put` takes up to 10,000 pairs per call; smaller batches give finer progress. */
const BATCH = 5000;

export interface RemoteTargetOptions {
  /** Print every wrangler command and write the batch files, but run nothing. */
  dryRun?: boolean;
  log?: (line: string) => void;
  /**
   * Where the commands run: `--remote` (the deployed namespace, the default), or `--local
   * --persist-to DIR` (the same commands on local state: what a test of this target drives).
   */
  where?: readonly string[];
}

/**
 * A publish target that drives `wrangler kv ... --remote` against the CATALOG binding of
 * wrangler.toml. Node only (operator CLI). Each command is printed before it runs, so an operator
 * sees exactly what touches production; values travel in files, never on the command line.
 */
export function remoteTarget(opts: RemoteTargetOptions = {}): CatalogKvTarget & { dispose: () => void } {
  const log = opts.log ?? ((line: string) => console.log(line));
  const dir = mkdtempSync(join(tmpdir(), "catalog-remote-"));
  let files = 0;
  const wrangler = (args: string[]): string => {
    const full = ["wrangler", ...args, "--binding", "CATALOG", ...(opts.where ?? ["--remote"])];
    log(`$ npx ${full.join(" ")}`);
    if (opts.dryRun) return "";
    const run = spawnSync("npx", full, {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    if (run.status !== 0) throw new Error(`wrangler ${args.slice(0, 3).join(" ")} failed (exit ${run.status}).`);
    return run.stdout;
  };
  const file = (content: unknown): string => {
    const path = join(dir, `batch-${++files}.json`);
    writeFileSync(path, JSON.stringify(content));
    return path;
  };
  return {
    async readPointer() {
      const text = wrangler(["kv", "key", "get", POINTER_KEY, "--text"]).trim();
      try {
        return text ? (JSON.parse(text) as Pointer) : null;
      } catch {
        return null;
      }
    },
    async readValues(names) {
      if (names.length === 0) return [];
      const found = new Map<string, string>();
      for (let i = 0; i < names.length; i += 100) {
        const text = wrangler(["kv", "bulk", "get", file(names.slice(i, i + 100))]);
        if (!text) continue;
        const values = JSON.parse(text) as Record<string, string | { value: string } | null>;
        for (const [key, value] of Object.entries(values))
          if (value !== null) found.set(key, typeof value === "string" ? value : value.value);
      }
      return names.map((name) => found.get(name) ?? null);
    },
    async readText(key) {
      // An absent key: wrangler fails (remote) or prints "Value not found"; a dry run prints nothing.
      try {
        const text = wrangler(["kv", "key", "get", key, "--text"]);
        return text === "" || text.trim() === "Value not found" ? null : text;
      } catch {
        return null;
      }
    },
    async readHistory() {
      const text = wrangler(["kv", "key", "get", HISTORY_KEY, "--text"]).trim();
      try {
        const parsed: unknown = text ? JSON.parse(text) : [];
        return Array.isArray(parsed) ? (parsed as HistoryEntry[]) : [];
      } catch {
        return [];
      }
    },
    async writeHistory(entries) {
      wrangler(["kv", "bulk", "put", file([{ key: HISTORY_KEY, value: JSON.stringify(entries) }])]);
    },
    async writeEntries(entries, onWritten) {
      let batch: KvEntry[] = [];
      const flush = () => {
        if (batch.length === 0) return;
        wrangler(["kv", "bulk", "put", file(batch)]);
        onWritten(batch.length);
        batch = [];
      };
      for await (const entry of entries) {
        batch.push(entry);
        if (batch.length >= BATCH) flush();
      }
      flush();
    },
    async writePointer(pointer) {
      wrangler(["kv", "bulk", "put", file([{ key: POINTER_KEY, value: JSON.stringify(pointer) }])]);
    },
    async listKeys(prefix) {
      const text = wrangler(["kv", "key", "list", "--prefix", prefix]);
      return text ? (JSON.parse(text) as { name: string }[]).map((k) => k.name) : [];
    },
    async deleteKeys(names) {
      for (let i = 0; i < names.length; i += BATCH)
        wrangler(["kv", "bulk", "delete", file(names.slice(i, i + BATCH)), "--force"]);
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
