import type { Counts } from "./counting.ts";
import type { LoadResult } from "./load.ts";
import type { PublishFigures } from "./fixture.ts";

/** One workload in one scenario: measured, or why it could not be. */
export type WorkloadFigures = (LoadResult & { ratioToCeiling: number }) | { name: string; skipped: string };

/** One runtime: a catalog, with or without the edge cache, its ceiling and its workloads. */
export interface Scenario {
  catalog: string;
  products: number;
  edgeCache: boolean;
  /** The ceiling's figures from its first run, with `rps` the mean of the runs before and after. */
  ceiling: LoadResult;
  ceilingRuns: number[];
  workloads: WorkloadFigures[];
}

export interface Target {
  name: string;
  value: string;
  met: boolean;
}

/** Everything a run measured; `--json FILE` writes exactly this. */
export interface BenchReport {
  mode: "full" | "quick";
  date: string;
  machine: { cpus: number; node: string; platform: string };
  settings: { connections: number; durationS: number; warmupS: number; cartTokens: number; rateLimitPerMinute: number };
  bundle: { rawBytes: number; gzipBytes: number };
  startToFirstResponseMs: number;
  publish: Record<string, PublishFigures>;
  /** Time to generate the large catalog in memory (not part of the publish figures). */
  generateMs: number;
  scenarios: Scenario[];
  /** Per-request KV reads, KV bytes and Cache API calls of each workload (counting.ts). */
  counts: { catalog: string; edgeCache: boolean; counts: Counts[] }[];
  /** p50 large / seed per workload; `cpuRatio` compares workerd CPU per request, which a busy machine disturbs less. */
  scale: { workload: string; edgeCache: boolean; seedP50Ms: number; largeP50Ms: number; ratio: number; cpuRatio: number }[];
  targets: Target[];
}

export function measured(w: WorkloadFigures): w is LoadResult & { ratioToCeiling: number } {
  return !("skipped" in w);
}

const HOT_READS = ["product detail", "list first page", "collection page"];
const CATALOG_READS = ["list first page", "list deep page", "product detail", "variants + selectors", "collection page", "304 revalidation"];

/** p50 of each catalog workload on the large catalog against the seed, per edge-cache mode. */
export function scaleRatios(scenarios: Scenario[], seed: string, large: string): BenchReport["scale"] {
  const rows: BenchReport["scale"] = [];
  for (const edgeCache of [true, false]) {
    const a = scenarios.find((s) => s.catalog === seed && s.edgeCache === edgeCache);
    const b = scenarios.find((s) => s.catalog === large && s.edgeCache === edgeCache);
    if (!a || !b) continue;
    for (const name of CATALOG_READS) {
      const x = a.workloads.find((w) => w.name === name);
      const y = b.workloads.find((w) => w.name === name);
      if (x && y && measured(x) && measured(y)) {
        const cpuRatio = (y.workerdCpuUsPerRequest ?? Number.NaN) / (x.workerdCpuUsPerRequest ?? Number.NaN);
        rows.push({ workload: name, edgeCache, seedP50Ms: x.p50Ms, largeP50Ms: y.p50Ms, ratio: y.p50Ms / x.p50Ms, cpuRatio });
      }
    }
  }
  return rows;
}

/** The issue's targets, each met or not, from the figures of this run. */
export function evaluateTargets(report: Omit<BenchReport, "targets">, large: string): Target[] {
  const targets: Target[] = [];
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  for (const s of report.scenarios.filter((s) => s.edgeCache)) {
    for (const name of HOT_READS) {
      const w = s.workloads.find((x) => x.name === name);
      const value = w && measured(w) ? w.ratioToCeiling : Number.NaN;
      targets.push({ name: `${name} (${s.catalog}) >= 80% of ceiling`, value: w && measured(w) ? pct(value) : "not measured", met: value >= 0.8 });
    }
  }
  for (const edgeCache of [true, false]) {
    const rows = report.scale.filter((r) => r.edgeCache === edgeCache);
    if (rows.length === 0) continue;
    const worst = rows.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    targets.push({
      name: `${large} p50 within 1.2x of seed, every catalog workload (edge cache ${edgeCache ? "on" : "off"})`,
      value: `worst ${worst.ratio.toFixed(2)}x (${worst.workload}), ${rows.length}/${CATALOG_READS.length} measured`,
      met: rows.length === CATALOG_READS.length && worst.ratio <= 1.2,
    });
  }
  const cartScenario = report.scenarios.find((s) => s.workloads.some((w) => w.name === "add to cart, distinct carts"));
  const distinct = cartScenario?.workloads.find((w) => w.name === "add to cart, distinct carts");
  targets.push({
    name: "add to cart, distinct carts >= 50% of ceiling",
    value: distinct && measured(distinct) ? pct(distinct.ratioToCeiling) : "not measured",
    met: !!distinct && measured(distinct) && distinct.ratioToCeiling >= 0.5,
  });
  const all: WorkloadFigures[] = report.scenarios.flatMap((s) => [{ ...s.ceiling, ratioToCeiling: 1 }, ...s.workloads]);
  const errors = all.filter(measured).reduce((a, w) => a + w.errors, 0);
  const skipped = all.filter((w) => !measured(w)).length;
  targets.push({ name: "zero errors in every workload", value: `${errors} errors, ${skipped} not measured`, met: errors === 0 && skipped === 0 });
  targets.push({
    name: "bundle <= 100 KiB gzip",
    value: `${(report.bundle.gzipBytes / 1024).toFixed(1)} KiB`,
    met: report.bundle.gzipBytes <= 100 * 1024,
  });
  return targets;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  return [line(header), `|${widths.map((w, i) => (i === 0 ? `:${"-".repeat(w + 1)}` : `${"-".repeat(w + 1)}:`)).join("|")}|`, ...rows.map(line)].join("\n");
}

const n = (x: number, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : "-");

function statusMix(w: LoadResult): string {
  return Object.entries(w.statuses)
    .map(([code, count]) => `${count}x${code}`)
    .join(" ");
}

/** The run as Markdown tables (pasted as-is into the README's performance section). */
export function renderReport(report: BenchReport): string {
  const out: string[] = [];
  const header = ["workload", "catalog", "edge cache", "req/s", "p50 ms", "p99 ms", "errors", "x ceiling", "workerd CPU µs/req"];
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const s of report.scenarios) {
    const cache = s.edgeCache ? "on" : "off";
    const all: WorkloadFigures[] = [{ ...s.ceiling, ratioToCeiling: 1 }, ...s.workloads];
    for (const w of all) {
      if (!measured(w)) {
        rows.push([w.name, s.catalog, cache, "n/m", "-", "-", "-", "-", "-"]);
        notes.push(`not measured: ${w.name} (${s.catalog}, edge cache ${cache}): ${w.skipped}`);
        continue;
      }
      const errors = w.errors === 0 ? "0" : `${w.errors} (${statusMix(w)})`;
      rows.push([w.name, s.catalog, cache, n(w.rps), n(w.p50Ms, 2), n(w.p99Ms, 2), errors, n(w.ratioToCeiling, 2), n(w.workerdCpuUsPerRequest ?? Number.NaN)]);
    }
  }
  out.push(table(header, rows));
  if (notes.length > 0) out.push("", ...[...new Set(notes)].map((note) => `- ${note}`));
  if (report.scale.length > 0) {
    out.push("", table(
      ["scale: p50", "edge cache", "seed p50 ms", "large p50 ms", "p50 large / seed", "CPU/req large / seed"],
      report.scale.map((r) => [r.workload, r.edgeCache ? "on" : "off", n(r.seedP50Ms, 2), n(r.largeP50Ms, 2), n(r.ratio, 2), n(r.cpuRatio, 2)]),
    ));
  }
  if (report.counts.length > 0) {
    const rows: string[][] = [];
    for (const c of report.counts) {
      for (const w of c.counts) {
        const x = (key: string) => w.perRequest[key] ?? 0;
        rows.push([
          w.name,
          c.catalog,
          c.edgeCache ? "on" : "off",
          n(x("CATALOG reads"), 1),
          n(x("CATALOG bytes") / 1024, 1),
          n(x("TOKENS reads"), 1),
          `${n(x("cache matches"), 1)} / ${n(x("cache hits"), 1)} / ${n(x("cache puts"), 1)}`,
        ]);
      }
    }
    out.push("", table(["per request", "catalog", "edge cache", "CATALOG KV reads", "CATALOG KiB read", "TOKENS KV reads", "cache match / hit / put"], rows));
  }
  const publishRows = Object.entries(report.publish).map(([name, p]) => [
    name,
    String(p.products),
    String(p.entries),
    n(p.ms / 1000, 1),
    n(p.validateMs / 1000, 1),
    n(p.writeMs / 1000, 1),
    n(p.rssBeforeMiB),
    n(p.peakRssMiB),
    n(p.workerdPeakRssMiB ?? Number.NaN),
  ]);
  out.push("", table(["publish", "products", "KV entries", "seconds", "validate s", "build+write s", "bench RSS before MiB", "bench peak RSS MiB", "workerd peak RSS MiB"], publishRows));
  out.push(
    "",
    `bundle: ${n(report.bundle.rawBytes / 1024, 1)} KiB raw, ${n(report.bundle.gzipBytes / 1024, 1)} KiB gzip; ` +
      `start to first answered request: ${n(report.startToFirstResponseMs)} ms`,
  );
  out.push("", table(["target", "value", "met"], report.targets.map((t) => [t.name, t.value, t.met ? "met" : "NOT met"])));
  return out.join("\n");
}
