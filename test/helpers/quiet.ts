import { mkdirSync, readFileSync, writeFileSync } from "node:fs";

/**
 * Keeps a passing `npm test` to a summary. Runs in the Node process that drives vitest, for both
 * projects (the config calls these once):
 * - the worker's one-line-per-request log is dropped unless `REQUEST_LOG=1`;
 * - figure lines, `[hardening] <suite> name=value …` (the hardening suites) and
 *   `[cost] <case> name=value …` (the browse cost test), are gathered into
 *   `test-results/hardening.json` (summed over the run) and `test-results/cost.json` (the last
 *   value per case) instead of printed.
 */
export const FIGURES_FILE = "test-results/hardening.json";
export const COST_FILE = "test-results/cost.json";

const REQUEST_LOG_LINE = /^\{"method":"[A-Z]+","route":/;
const FIGURE_FILES: Record<string, { file: string; sum: boolean }> = {
  "[hardening]": { file: FIGURES_FILE, sum: true },
  "[cost]": { file: COST_FILE, sum: false },
};

function readFigures(file: string): Record<string, Record<string, number>> {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, number>>;
  } catch {
    return {}; // First figures of the run, or an unreadable leftover: start afresh.
  }
}

function recordFigures(line: string, target: { file: string; sum: boolean }): void {
  const [, name = "unknown", ...pairs] = line.trim().split(/\s+/);
  const all = readFigures(target.file);
  if (!target.sum || !all[name]) all[name] = {};
  const figures = all[name];
  for (const pair of pairs) {
    const [key, value] = pair.split("=");
    if (key && value !== undefined && Number.isFinite(Number(value)))
      figures[key] = (target.sum ? (figures[key] ?? 0) : 0) + Number(value);
  }
  mkdirSync("test-results", { recursive: true });
  writeFileSync(target.file, `${JSON.stringify(all, null, 2)}\n`);
}

export function quietConsole(log: string): boolean | undefined {
  const target = FIGURE_FILES[log.slice(0, log.indexOf(" "))];
  if (target) {
    recordFigures(log, target);
    return false;
  }
  if (process.env.REQUEST_LOG !== "1" && REQUEST_LOG_LINE.test(log.trim())) return false;
}

/** Fresh figure files per run (the config calls this once). */
export function quietRun(): void {
  mkdirSync("test-results", { recursive: true });
  for (const { file } of Object.values(FIGURE_FILES)) writeFileSync(file, "{}\n");
}
