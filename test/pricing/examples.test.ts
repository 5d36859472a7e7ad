import { describe, expect, it } from "vitest";
import { COST_GUIDE } from "../../src/openapi/cost-guide.ts";
import { costOf, table } from "./build.ts";
import { WORKED_EXAMPLES } from "./worked-examples.ts";

describe("the reference's worked examples (figures worked out by hand)", () => {
  const guide = COST_GUIDE.join("\n");

  it.each(WORKED_EXAMPLES.map((e) => [e.title, e] as const))("%s", (_, example) => {
    const cost = costOf({ ...example.input, lines: example.lines });
    expect(table(cost, example.lines)).toBe(example.table);
    // The reference shows the same table, so what it tells is what the API answers.
    expect(guide).toContain(example.table);
  });

  it("says under stripe that the payment computes the tax", () => {
    const stripe = WORKED_EXAMPLES.find((e) => e.title.startsWith("tax stripe"))!;
    const cost = costOf({ ...stripe.input, lines: stripe.lines });
    expect([cost.tax, cost.tax_calculated_at]).toEqual([null, "payment"]);
  });
});
