import { describe, expect, it } from "vitest";
import { BrowseQuerySchema, FacetsQuerySchema } from "../../src/browse/api.ts";
import { FILTER_PARAMETERS, PAGE_PARAMETERS } from "../../src/browse/parameters.ts";
import { parseBrowseFacets, parseBrowsePage } from "../../src/browse/query.ts";
import { CatalogError } from "../../src/catalog/errors.ts";

/**
 * The browse query is described once (src/browse/parameters.ts): the OpenAPI document shows it and
 * the parser reads it. These pin the two together, so a parameter documented but not parsed (or
 * parsed but not documented, or checked differently) fails here.
 */

/** Per parameter of the document: a value both accept, and one the schema refuses (none: any text). */
const SAMPLES: Record<string, { good: string; bad?: string }> = {
  q: { good: "tee" },
  available: { good: "true", bad: "yes" },
  vendor: { good: "Northwind" },
  product_type: { good: "Tees" },
  tag: { good: "men" },
  price_min: { good: "10.5", bad: "1.23456" },
  price_max: { good: "60", bad: "-1" },
  sort: { good: "price_asc", bad: "best" },
  limit: { good: "10", bad: "0" },
  starting_after: { good: "example-t-shirt", bad: "Not A Handle" },
  ending_before: { good: "example-t-shirt", bad: "a--b" },
  include: { good: "image", bad: "images" },
  catalog_version: { good: "20261124T204000Z-a1b2c3", bad: "no spaces" },
};

function failure(run: () => unknown): { code: string; param?: string } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!(error instanceof CatalogError)) throw error;
    return { code: error.code, ...(error.param !== undefined ? { param: error.param } : {}) };
  }
}

describe("the browse query, described once", () => {
  const documented = Object.keys(BrowseQuerySchema.shape).sort();

  it("documents exactly the parameters parameters.ts describes, facets the filters alone", () => {
    expect(documented).toEqual(Object.keys({ ...FILTER_PARAMETERS, ...PAGE_PARAMETERS }).sort());
    expect(Object.keys(FacetsQuerySchema.shape).sort()).toEqual(Object.keys(FILTER_PARAMETERS).sort());
    expect(Object.keys(SAMPLES).sort()).toEqual(documented);
  });

  it.each(Object.entries(SAMPLES))("parses %s as documented", (name, { good, bad }) => {
    // The page accepts every documented parameter; facets only the filters and refuse the rest.
    expect(failure(() => parseBrowsePage([[name, good]]))).toBeUndefined();
    const facets = failure(() => parseBrowseFacets([[name, good]]));
    if (name in FILTER_PARAMETERS) expect(facets).toBeUndefined();
    else expect(facets).toEqual({ code: "parameter_unknown", param: name });
    if (bad === undefined) return;
    // A value the documented schema refuses, the parser refuses too, naming the parameter.
    const schema = (BrowseQuerySchema.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>)[name]!;
    expect(schema.safeParse(bad).success).toBe(false);
    expect(failure(() => parseBrowsePage([[name, bad]]))).toEqual({ code: "parameter_invalid", param: name });
  });

  it("refuses an undocumented parameter as unknown", () => {
    expect(failure(() => parseBrowsePage([["colour", "red"]]))).toEqual({
      code: "parameter_unknown",
      param: "colour",
    });
  });
});
