import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { BenchReport } from "../bench/report.ts";
import { LAST_RUN_JSON, RESULTS_MD, renderResults } from "../bench/results.ts";

describe("the committed performance report", () => {
  it("is exactly what test/bench/results.ts renders from the committed run's JSON (never edited by hand)", async () => {
    const report = JSON.parse(await readFile(LAST_RUN_JSON, "utf8")) as BenchReport;
    expect(await readFile(RESULTS_MD, "utf8")).toBe(renderResults(report, LAST_RUN_JSON));
  });
});
