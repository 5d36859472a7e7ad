import { count } from "../count.ts";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { BrowseReader } from "../browse/source.ts";
import type { BrowseTarget } from "./browse-index.ts";
import { type SqlQuery, sqlText } from "./lock.ts";

/**
 * The browse index of a remote publish: each group of statements goes to the BROWSE database of
 * wrangler.toml with `wrangler d1 execute BROWSE --remote --file`, printed before it runs (and
 * only printed with `dryRun`). The same statements also run into a scratch node:sqlite copy
 * (SQLite, as D1 is), which the snapshot is read from exactly as an engine reads D1, so the
 * snapshot costs no read of the remote database; it goes to the BROWSE_SNAPSHOTS bucket with
 * `wrangler r2 object put --remote`. Stale versions' snapshots are not listed remotely (wrangler
 * has no object listing): they stay until an R2 lifecycle rule expires them (README).
 * Node only (operator CLI).
 */
export function remoteBrowseTarget(opts: { dryRun?: boolean; log?: (line: string) => void } = {}): BrowseTarget {
  const log = opts.log ?? console.log;
  const npx = (full: string[]): string => {
    log(`$ npx ${full.join(" ")}`);
    if (opts.dryRun) return "[]";
    const run = spawnSync("npx", full, {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    if (run.status !== 0) throw new Error(`wrangler ${full[1]} ${full[2]} failed (exit ${run.status}).`);
    return run.stdout;
  };
  const wrangler = (args: string[]): string =>
    npx(["wrangler", "d1", "execute", "BROWSE", "--remote", "--yes", ...args]);
  const mirror = sqliteMirror();
  return {
    async run(statements) {
      mirror.run(statements);
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
    snapshots: {
      reader: mirror.reader,
      async put(key, bytes) {
        const dir = mkdtempSync(join(tmpdir(), "browse-"));
        try {
          const file = join(dir, "snapshot.bin");
          writeFileSync(file, bytes);
          npx(["wrangler", "r2", "object", "put", `${snapshotBucket()}/${key}`, "--file", file, "--remote"]);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
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
    const run = spawnSync("npx", full, {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    if (run.status !== 0) throw new Error(`wrangler d1 execute failed (exit ${run.status}).`);
    const parsed = JSON.parse(run.stdout) as { results?: Record<string, unknown>[] }[];
    return parsed.flatMap((r) => r.results ?? []);
  };
}

/**
 * A scratch SQLite database the browse index's statements also run into, and a reader over it
 * for readBrowseData: what a remote publish builds its snapshot from (and the snapshot size
 * script, test/bench/snapshot-size.ts). On disk, not in memory (a million products' index is
 * about a gigabyte of pages), in a scratch directory deleted when the process exits, and with no
 * journal (a copy, rebuilt by a rerun).
 */
export function sqliteMirror(): { run(statements: readonly string[]): void; reader: BrowseReader } {
  const dir = mkdtempSync(join(tmpdir(), "browse-mirror-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const db = new DatabaseSync(join(dir, "mirror.sqlite"));
  db.exec("PRAGMA journal_mode = OFF");
  return {
    run(statements) {
      for (const s of statements) db.exec(s);
    },
    reader: {
      async batch(statements) {
        return statements.map((s) => db.prepare(s.sql).all(...s.params) as Record<string, unknown>[]);
      },
    },
  };
}

/** The bucket_name of the BROWSE_SNAPSHOTS binding in wrangler.toml. */
function snapshotBucket(): string {
  const toml = readFileSync("wrangler.toml", "utf8");
  const name = /binding\s*=\s*"BROWSE_SNAPSHOTS"\s*\n\s*bucket_name\s*=\s*"([^"]+)"/.exec(toml)?.[1];
  if (!name) throw new Error('wrangler.toml has no [[r2_buckets]] binding "BROWSE_SNAPSHOTS" with a bucket_name.');
  return name;
}

/** A statement's SQL with its parameters written in (`?1` ... and `?`), for `wrangler d1 execute`, which binds none. */
export function inlineParams(sql: string, params: readonly (string | number)[]): string {
  let next = 0;
  return sql.replace(/\?(\d*)/g, (_, n: string) => {
    const value = params[n === "" ? next++ : Number(n) - 1];
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
    if (typeof value === "string") return sqlText(value);
    throw new Error(`SQL parameter ${n || next} has no value: ${sql.slice(0, 80)}`);
  });
}

/**
 * The browse side of a change batch applied through wrangler (`catalog:apply --remote`): its
 * statements run with `wrangler d1 execute BROWSE`, its reads of the root's and the new layer's
 * tables go to the same database (one command per group of statements, their parameters written
 * in), and its snapshot and state go to and come from the BROWSE_SNAPSHOTS bucket. `where` is
 * `--remote` for production, or `--local --persist-to DIR` (a test drives the same commands on
 * local state). Every command is printed before it runs. Node only (operator CLI).
 */
export function wranglerBatchBrowse(
  opts: { where?: readonly string[]; log?: (line: string) => void } = {},
): BrowseTarget {
  const log = opts.log ?? console.log;
  const where = opts.where ?? ["--remote"];
  const npx = (full: string[]): { status: number | null; stdout: string } => {
    log(`$ npx ${full.join(" ")}`);
    const run = spawnSync("npx", full, {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      maxBuffer: 1 << 30,
    });
    return { status: run.status, stdout: run.stdout };
  };
  const scratch = <T>(name: string, body: (file: string) => T): T => {
    const dir = mkdtempSync(join(tmpdir(), "browse-"));
    try {
      return body(join(dir, name));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const d1 = (sql: string, json: boolean): string =>
    scratch("batch.sql", (file) => {
      writeFileSync(file, sql);
      const run = npx([
        "wrangler",
        "d1",
        "execute",
        "BROWSE",
        ...where,
        "--yes",
        ...(json ? ["--json"] : []),
        "--file",
        file,
      ]);
      if (run.status !== 0) throw new Error(`wrangler d1 execute failed (exit ${run.status}).`);
      return run.stdout;
    });
  return {
    async run(statements) {
      if (statements.length > 0) d1(`${statements.join(";\n")};\n`, false);
    },
    async tables() {
      const out = d1("SELECT name FROM sqlite_master WHERE type IN ('table', 'index');\n", true);
      const parsed = JSON.parse(out) as { results?: { name: string }[] }[];
      return parsed.flatMap((r) => r.results ?? []).map((r) => r.name);
    },
    snapshots: {
      reader: {
        async batch(statements) {
          if (statements.length === 0) return [];
          const sql = statements.map((s) => `${inlineParams(s.sql, s.params)};\n`).join("");
          const parsed = JSON.parse(d1(sql, true)) as { results?: Record<string, unknown>[] }[];
          if (parsed.length !== statements.length)
            throw new Error(
              `wrangler d1 execute answered ${count(parsed.length, "result set")} for ${count(statements.length, "statement")}.`,
            );
          return parsed.map((r) => r.results ?? []);
        },
      },
      async put(key, bytes) {
        scratch("object.bin", (file) => {
          writeFileSync(file, bytes);
          const run = npx(["wrangler", "r2", "object", "put", `${snapshotBucket()}/${key}`, "--file", file, ...where]);
          if (run.status !== 0) throw new Error(`wrangler r2 object put failed (exit ${run.status}).`);
        });
      },
      async get(key) {
        return scratch("object.bin", (file) => {
          const run = npx(["wrangler", "r2", "object", "get", `${snapshotBucket()}/${key}`, "--file", file, ...where]);
          // wrangler says "The specified key does not exist" and exits 1 for a missing object.
          return run.status === 0 && existsSync(file) ? new Uint8Array(readFileSync(file)) : null;
        });
      },
    },
  };
}
