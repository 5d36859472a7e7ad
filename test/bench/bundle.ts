import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { BARE_HONO_SOURCE } from "./entry.ts";

const run = promisify(execFile);

/** The production bundle as `wrangler deploy` would upload it, and its size. */
export interface Bundle {
  dir: string;
  scriptPath: string;
  rawBytes: number;
  gzipBytes: number;
  buildMs: number;
  /**
   * The bare-Hono ceiling's module (entry.ts): a one-route Hono app bundled by esbuild (the
   * bundler wrangler runs) for workerd, minified as the worker is. Never part of `index.js`.
   */
  bareHono: string;
}

/** Bundles the bare Hono app as wrangler bundles the worker: esbuild, ESM, workerd's conditions. */
async function buildBareHono(minify: boolean): Promise<string> {
  const out = await build({
    stdin: { contents: BARE_HONO_SOURCE, resolveDir: process.cwd(), loader: "js" },
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2024",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    minify,
    write: false,
  });
  return out.outputFiles[0]!.text;
}

/**
 * Builds the worker exactly as a deploy would (`wrangler deploy --dry-run --outdir`), so the
 * benchmark measures the code that ships, minified or not as wrangler.toml says, not the
 * TypeScript sources vitest runs. Wrangler is run by this same Node (24) from node_modules.
 * `extraArgs` exist for the profiler, which builds with `--no-minify` to keep function names.
 */
export async function buildBundle(outDir: string, extraArgs: readonly string[] = []): Promise<Bundle> {
  const started = performance.now();
  await run(
    process.execPath,
    ["node_modules/wrangler/bin/wrangler.js", "deploy", "--dry-run", "--outdir", outDir, ...extraArgs],
    {
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const buildMs = performance.now() - started;
  const scriptPath = join(outDir, "index.js");
  const code = await readFile(scriptPath);
  const bareHono = await buildBareHono(!extraArgs.includes("--no-minify"));
  return {
    dir: outDir,
    scriptPath,
    rawBytes: code.byteLength,
    gzipBytes: gzipSync(code).byteLength,
    buildMs,
    bareHono,
  };
}

/** The catalog writer Worker as a deploy builds it (writer/wrangler.toml): for the bench's change batches through the API. */
export async function buildWriterBundle(outDir: string): Promise<{ dir: string; scriptPath: string }> {
  await run(
    process.execPath,
    [
      "node_modules/wrangler/bin/wrangler.js",
      "deploy",
      "--dry-run",
      "--config",
      "writer/wrangler.toml",
      "--outdir",
      outDir,
    ],
    { env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" }, maxBuffer: 16 * 1024 * 1024 },
  );
  return { dir: outDir, scriptPath: join(outDir, "index.js") };
}

/** The memos' budgets, minified (`new BoundedMemo(8*1024*1024)`) or not (`(16 * 1024 * 1024)`). */
const MEMO_BUDGET = /new ([\w$]+)\((?:8|16) ?\* ?1024 ?\* ?1024\)/g;

/**
 * A copy of the bundle whose two catalog memos (answers, parsed values) keep nothing (BoundedMemo
 * refuses any value over budget / 4): every catalog read then costs what a first read does. Used
 * by memory.ts and by the bench's "no memos" scenario, where every answer is a true miss.
 */
export async function withoutMemos(bundle: Bundle, dir: string): Promise<Bundle> {
  const code = await readFile(bundle.scriptPath, "utf8");
  const found = code.match(MEMO_BUDGET) ?? [];
  if (found.length !== 2)
    throw new Error(`expected the two memo budgets in the bundle, found ${found.length}: ${found.join(", ")}`);
  const scriptPath = join(dir, "index.js");
  await writeFile(scriptPath, code.replace(MEMO_BUDGET, "new $1(0)"));
  return { ...bundle, dir, scriptPath };
}
