import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { count } from "../../src/count.ts";

/**
 * Issue 42, point 18: the CLIs and messages said "1 units", "1 orders". A count is written with
 * `count(n, noun)` (src/count.ts); this finds a number put before a plural noun any other way:
 * `${n} units`, `${n} tracked variants`, `${n} ${unit}s`. A constant (`${MAX_LINES} lines`) is
 * never 1, so it may.
 */
const NOUNS =
  "units|orders|lines|products|variants|images|levels|rows|versions|holds|movements|checkouts|tokens|" +
  "collections|changes|keys|pairs|characters|bytes|shards|entries|requests|writes|items|differences|events|" +
  "records|files|statements|words|batches|digits|decimals|uses|discounts";
const COUNTED = new RegExp(`\\$\\{([^{}]+)\\} (?:[a-z-]+ )?(?:${NOUNS})\\b|\\$\\{([^{}]+)\\} \\$\\{\\w+\\}s\\b`, "g");
/** Not counts: an option's name before "values" (`the product's size values`). */
const NOT_COUNTS = new Set(["option.name"]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

describe("counts in messages and CLI output", () => {
  it("says 1 unit, 2 units", () => {
    expect([count(0, "unit"), count(1, "unit"), count(2, "unit"), count(1, "entry", "entries")]).toEqual([
      "0 units",
      "1 unit",
      "2 units",
      "1 entry",
    ]);
    expect(count(1500, "row", "rows", (1500).toLocaleString("en-US"))).toBe("1,500 rows");
  });

  it("writes every count of src/ with count(), never a number before a plural noun", () => {
    const found: string[] = [];
    for (const file of sources("src")) {
      for (const match of readFileSync(file, "utf8").matchAll(COUNTED)) {
        const expression = (match[1] ?? match[2] ?? "").trim();
        if (/^[A-Z0-9_]+(\.toLocaleString\([^)]*\))?$/.test(expression) || NOT_COUNTS.has(expression)) continue;
        found.push(`${file}: ${match[0]}`);
      }
    }
    expect(found).toEqual([]);
  });
});
