/**
 * The bench's publish row for a catalog too large to generate in the bench's own process (1M
 * products: ~3.8 GiB as objects): `npm run catalog:publish -- --local` on a generated file, run as
 * the operator runs it, in a child process whose peak RSS (VmHWM) and workerd's are sampled.
 *
 *   npm exec -- node test/bench/publish-file.ts --products 1000000 [--file F]
 *
 * Without --file the catalog is generated (catalog:generate --seed 1, not timed) into a scratch
 * directory; with it, F is published (generated beforehand with the same command). The state goes
 * to a fresh scratch directory, deleted after. Prints the publish table of npm run bench with one
 * row; its "bench peak RSS" is the catalog:publish process's (test/bench/README.md).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineCli } from "../../src/cli/args.ts";
import type { PublishFigures } from "./fixture.ts";
import { publishTable } from "./report.ts";

const cli = defineCli({
  command: "npm exec -- node test/bench/publish-file.ts",
  summary: "Publishes a generated catalog file with catalog:publish --local and prints the bench's publish row.",
  options: {
    products: { type: "integer", value: "N", min: 1, help: "products to generate (default 1000000)" },
    file: { type: "string", value: "FILE", help: "publish FILE instead of generating one" },
  },
});
const { values } = cli.parse();
const work = mkdtempSync(join(tmpdir(), "storefront-publish-bench-"));

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

try {
  let file = values.file;
  if (file === undefined) {
    const products = values.products ?? 1_000_000;
    file = join(work, `catalog-${products}.json`);
    process.stderr.write(`[bench] generating ${products} products into ${file}\n`);
    const generated = spawnSync(
      process.execPath,
      ["src/cli/catalog-generate.ts", "--products", String(products), "--seed", "1", "--out", file],
      { stdio: "inherit" },
    );
    if (generated.status !== 0) throw new Error("catalog:generate failed");
  }
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ["src/cli/catalog-publish.ts", "--local", "--persist-to", join(work, "state"), file],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let validated: number | undefined;
  let switched: number | undefined;
  let out = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text: string) => {
    out += text;
    process.stderr.write(text);
    if (validated === undefined && out.includes("Catalog is valid")) validated = performance.now();
    if (switched === undefined && out.includes("Pointer switched")) switched = performance.now();
  });
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
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearInterval(sampler);
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`catalog:publish exited ${code}`);
  const published = /(\d+) products, (\d+) entries in/.exec(out);
  if (!published) throw new Error("catalog:publish did not say what it published");
  const figures: PublishFigures = {
    products: Number(published[1]),
    entries: Number(published[2]),
    ms,
    validateMs: (validated ?? started) - started,
    writeMs: (switched ?? performance.now()) - (validated ?? started),
    rssBeforeMiB: Number.NaN,
    peakRssMiB: publisherMiB,
    workerdPeakRssMiB: workerdMiB || undefined,
  };
  const label = `${Math.round(figures.products / 1000)}k (catalog:publish of a file)`;
  process.stdout.write(`${publishTable({ [label]: figures })}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
