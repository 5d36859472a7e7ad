import { describe, expect, it } from "vitest";
import { fromMinor, toMinor } from "../src/money.ts";

describe("money", () => {
  it("reads one-decimal source prices as whole minor units", () => {
    expect(toMinor("100.0")).toBe(10000);
    expect(toMinor("19.99")).toBe(1999);
    expect(toMinor("7")).toBe(700);
  });

  it("writes two decimals whatever the source used", () => {
    expect(fromMinor(10000)).toEqual({ amount: "100.00", currency: "USD" });
    expect(fromMinor(5)).toEqual({ amount: "0.05", currency: "USD" });
  });

  it("refuses more decimals than the currency has, so no rounding ever happens", () => {
    expect(() => toMinor("1.999")).toThrow(RangeError);
  });

  it("sums prices exactly where floating point would not", () => {
    expect(fromMinor(toMinor("0.10") + toMinor("0.20")).amount).toBe("0.30");
  });
});
