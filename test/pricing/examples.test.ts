import { describe, expect, it } from "vitest";
import { costOf, table } from "./build.ts";
import { WORKED_EXAMPLES } from "./worked-examples.ts";

describe("the reference's worked examples (figures worked out by hand)", () => {
  it.each(WORKED_EXAMPLES.map((e) => [e.title, e] as const))("%s", (_, example) => {
    const cost = costOf({ ...example.input, lines: example.lines });
    expect(table(cost, example.lines)).toBe(example.table);
  });
});
