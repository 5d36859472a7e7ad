import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { BenchReport } from "../bench/report.ts";
import {
  type BatchRun,
  LAST_RUN_JSON,
  RESULTS_MD,
  readBatchRuns,
  renderBatchRuns,
  renderResults,
} from "../bench/results.ts";

describe("the committed performance report", () => {
  it("is exactly what test/bench/results.ts renders from the committed runs' JSON (never edited by hand)", async () => {
    const report = JSON.parse(await readFile(LAST_RUN_JSON, "utf8")) as BenchReport;
    expect(await readFile(RESULTS_MD, "utf8")).toBe(renderResults(report, LAST_RUN_JSON, await readBatchRuns()));
  });

  it("judges the change-batch target on the 1M run through the endpoint, and says when it was not measured", () => {
    const run = (products: number, via: BatchRun["via"], visibleS: number): BatchRun => ({
      date: "2026-11-29T05:00:00.000Z",
      machine: { cpus: 2, node: "v24", platform: "linux-x64" },
      command: "npm exec -- node test/bench/batch-file.ts",
      products,
      via,
      rows: [
        { size: 1, switchS: 0.2, visibleS: 0.4 },
        { size: 100, switchS: visibleS - 0.1, visibleS },
      ],
    });
    expect(renderBatchRuns([run(100_000, "api", 2)])).toContain("not measured.");
    expect(renderBatchRuns([run(1_000_000, "cli", 3)])).toContain("not measured.");
    expect(renderBatchRuns([run(1_000_000, "api", 4.2), run(100_000, "api", 9)])).toContain("4.2 s, met.");
    expect(renderBatchRuns([run(1_000_000, "api", 5.1)])).toContain("5.1 s, NOT met.");
    const rows = renderBatchRuns([run(1_000_000, "api", 4.2), run(100_000, "cli", 1)]).split("\n");
    expect(rows.findIndex((l) => l.includes("| 100k |"))).toBeLessThan(rows.findIndex((l) => l.includes("| 1M |")));
  });
});
