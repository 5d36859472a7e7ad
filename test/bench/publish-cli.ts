import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PublishFigures } from "./fixture.ts";

/**
 * A catalog file published as the operator publishes it: `npm run catalog:publish -- --local
 * --persist-to DIR FILE` in a child process, whose peak RSS (VmHWM) and its workerd's are
 * sampled every 200 ms. Used by `npm run bench -- --catalog-file F` (run.ts) and by
 * test/bench/publish-file.ts. The CLI's `--persist-to DIR` is its local state's root: it opens
 * Miniflare's state in `DIR/v3` (src/cli/publish-run.ts), so a runtime serves what it published
 * with `persistPath: cliStatePath(DIR)`.
 */
export interface CliPublish {
  /** The publish row: `peakRssMiB` is the catalog:publish process's, `workerdPeakRssMiB` its workerd's. */
  figures: PublishFigures;
  /** The version it published (the pointer's `current.version` afterwards). */
  version: string;
}

/** Where Miniflare's state is under the CLI's `--persist-to DIR` (`wrangler dev` lays it out the same way). */
export function cliStatePath(persistTo: string): string {
  return join(persistTo, "v3");
}

/** The pid's descendants (children, their children ...), from /proc. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const visit = (p: number) => {
    let children: string[] = [];
    try {
      for (const task of readdirSync(`/proc/${p}/task`))
        children.push(...readFileSync(`/proc/${p}/task/${task}/children`, "utf8").trim().split(/\s+/));
    } catch {
      return;
    }
    children = children.filter(Boolean);
    for (const c of children) {
      out.push(Number(c));
      visit(Number(c));
    }
  };
  visit(pid);
  return out;
}

function status(pid: number): { name: string; hwmMiB: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = /VmHWM:\s+(\d+) kB/.exec(text)?.[1];
    return { name: /Name:\s+(\S+)/.exec(text)?.[1] ?? "", hwmMiB: kib ? Number(kib) / 1024 : 0 };
  } catch {
    return undefined;
  }
}

/**
 * Runs catalog:publish on `file` into `persistTo` (with `--shard-products` when given), echoing
 * its output through `say`, and returns its figures; throws if it fails.
 */
export async function publishWithCli(
  file: string,
  persistTo: string,
  options: { shardProducts?: number; say?: (line: string) => void } = {},
): Promise<CliPublish> {
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      "src/cli/catalog-publish.ts",
      "--local",
      "--persist-to",
      persistTo,
      ...(options.shardProducts !== undefined ? ["--shard-products", String(options.shardProducts)] : []),
      file,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let validated: number | undefined;
  let switched: number | undefined;
  let out = "";
  let partial = "";
  const echo = (text: string) => {
    partial += text;
    const lines = partial.split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) say(line);
  };
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text: string) => {
    out += text;
    echo(text);
    if (validated === undefined && out.includes("Catalog is valid")) validated = performance.now();
    if (switched === undefined && out.includes("Pointer switched")) switched = performance.now();
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", echo);
  // VmHWM is each process's own high-water mark: read it while the processes live.
  let publisherMiB = 0;
  let workerdMiB = 0;
  const sample = () => {
    if (child.pid === undefined) return;
    publisherMiB = Math.max(publisherMiB, status(child.pid)?.hwmMiB ?? 0);
    for (const pid of descendants(child.pid)) {
      const s = status(pid);
      if (s?.name === "workerd") workerdMiB = Math.max(workerdMiB, s.hwmMiB);
    }
  };
  const sampler = setInterval(sample, 200);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  }).finally(() => clearInterval(sampler));
  if (partial) say(partial);
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`catalog:publish of ${file} exited ${code}`);
  const published = /Published catalog (\S+): (\d+) products, (\d+) entries in/.exec(out);
  if (!published) throw new Error("catalog:publish did not say what it published");
  return {
    version: published[1] as string,
    figures: {
      products: Number(published[2]),
      entries: Number(published[3]),
      ms,
      validateMs: (validated ?? started) - started,
      writeMs: (switched ?? performance.now()) - (validated ?? started),
      rssBeforeMiB: Number.NaN,
      peakRssMiB: publisherMiB,
      workerdPeakRssMiB: workerdMiB || undefined,
      publisher: "catalog:publish",
    },
  };
}

/**
 * The catalog file a bench publishes: `file` when given, else `products` generated into `work`
 * (catalog:generate --seed 1, not timed), the same catalog for every bench that names the count.
 */
export function benchCatalogFile(file: string | undefined, products: number, work: string): string {
  if (file !== undefined) return file;
  const out = join(work, `catalog-${products}.json`);
  process.stderr.write(`[bench] generating ${products} products into ${out}\n`);
  const generated = spawnSync(
    process.execPath,
    ["src/cli/catalog-generate.ts", "--products", String(products), "--seed", "1", "--out", out],
    { stdio: "inherit" },
  );
  if (generated.status !== 0) throw new Error("catalog:generate failed");
  return out;
}
