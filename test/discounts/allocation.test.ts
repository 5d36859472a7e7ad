import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allocate, decimalRatio, mulDivHalfUp, percentRatio } from "../../src/money-math.ts";
import { costOf, line, rulesOf } from "../pricing/build.ts";

/** The one place of the money arithmetic (src/money-math.ts), and ties in spreading an amount over lines. */

const exactHalfUp = (a: number, num: number, den: number) =>
  Number((2n * BigInt(a) * BigInt(num) + BigInt(den)) / (2n * BigInt(den)));

describe("money arithmetic", () => {
  it("rounds a × num / den half-up exactly, past 2^53 too (a full cart times a six-decimal rate)", () => {
    expect(mulDivHalfUp(2495, 10, 100)).toBe(250); // 249.5 → 250
    expect(mulDivHalfUp(2494, 10, 100)).toBe(249);
    expect(mulDivHalfUp(24_975_024_975_001, 999_999, 1_000_000)).toBe(
      exactHalfUp(24_975_024_975_001, 999_999, 1_000_000),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 250 * 999 * 999_999_999 }),
        fc.integer({ min: 0, max: 2_000_000 }),
        fc.integer({ min: 1, max: 2_000_000 }),
        (a, num, den) => {
          expect(mulDivHalfUp(a, num, den)).toBe(exactHalfUp(a, num, den));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("spreads an amount by largest remainder: exact sum, no share above its weight, ties to the earlier", () => {
    expect(allocate(1000, [3000, 2000, 1000])).toEqual([500, 333, 167]);
    expect(allocate(100, [100, 100, 100])).toEqual([34, 33, 33]);
    expect(allocate(0, [0, 0])).toEqual([0, 0]);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 999 * 999_999_999 }), { minLength: 1, maxLength: 30 }),
        fc.nat(),
        (weights, seed) => {
          const sum = weights.reduce((a, b) => a + b, 0);
          const total = sum === 0 ? 0 : seed % (sum + 1);
          const shares = allocate(total, weights);
          expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
          shares.forEach((share, i) => {
            expect(share).toBeGreaterThanOrEqual(0);
            expect(share).toBeLessThanOrEqual(weights[i]!);
            // Within one minor unit of the exact quota.
            const gap = BigInt(share) * BigInt(sum) - BigInt(total) * BigInt(weights[i]!);
            expect(gap <= BigInt(sum) && gap >= -BigInt(sum)).toBe(true);
          });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("reads rates and percentages as exact ratios", () => {
    expect(decimalRatio("0.0725")).toEqual({ num: 725, den: 10_000 });
    expect(percentRatio("12.5")).toEqual({ num: 125, den: 1000 });
    expect(() => decimalRatio("1e3")).toThrow(RangeError);
  });
});

describe("spreading a fixed amount over lines", () => {
  const spread = (value: string) => rulesOf({ discounts: [{ id: "off", title: "Off", kind: "fixed_amount", value }] });

  it("breaks a tie of remainders by variant id as a number, never by position or line id", () => {
    // 1.00 over three 1.00 lines: 0.33 each and one cent to the lowest variant id, 4 (not "200", not the first line).
    const lines = [line("30", "1.00"), line("200", "1.00"), line("4", "1.00")];
    const cost = costOf({ lines, rules: spread("1.00") });
    expect(cost.lines.map((c, i) => [lines[i]!.variant_id, c.discount_total])).toEqual([
      ["30", 33],
      ["200", 33],
      ["4", 34],
    ]);
  });

  it("then by the line's attributes, for two lines of one variant", () => {
    const engraved = (text: string, id: string) => line("7", "1.00", 1, { attributes: `{"Engraving":"${text}"}`, id });
    const lines = [engraved("B", "cl_first"), engraved("A", "cl_second")];
    const cost = costOf({ lines, rules: spread("0.01") });
    expect(cost.lines.map((c) => [c.id, c.discount_total])).toEqual([
      ["cl_first", 0],
      ["cl_second", 1],
    ]);
  });

  it("never takes more than what it applies to", () => {
    const cost = costOf({ lines: [line("1", "3.00"), line("2", "1.50")], rules: spread("10.00") });
    expect(cost.discounts[0]!.amount).toBe(450);
    expect(cost.total).toBe(0);
  });
});
