/**
 * The arithmetic of a load run, kept free of Node and autocannon so a unit test in workerd can
 * check it: which responses count as errors, and latency percentiles.
 */

/**
 * Responses whose status is not one the workload expects, plus connection errors and timeouts.
 * A 304 is success only where the workload says so (revalidation); a cart write must be a 200.
 */
export function countErrors(
  statuses: Readonly<Record<string, number>>,
  ok: readonly number[],
  connectionErrors: number,
): number {
  let bad = connectionErrors;
  for (const [code, count] of Object.entries(statuses)) if (!ok.includes(Number(code))) bad += count;
  return bad;
}

/** The q-quantile (0..1) of ascending `sorted` by the nearest-rank method; NaN when empty. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}
