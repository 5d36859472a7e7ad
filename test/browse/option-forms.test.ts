import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { publishSeedCatalog } from "../helpers/catalog.ts";
import { API } from "../helpers/worker.ts";

/**
 * Issue 33 point 8: openapi-fetch serialised the `option.<name>` family as
 * `option[option.size]=M` (400). The deepObject form `option[size]=M`, what generated clients
 * send for `{option: {size: "M"}}`, is now read exactly as `option.size=M`: the same answer and
 * the same cache entry, because the cache key comes from the parsed query.
 */

async function get(path: string) {
  const res = await exports.default.fetch(`${API}${path}`);
  return { res, text: await res.text() };
}

function lastLogLine(log: { mock: { calls: unknown[][] } }): Record<string, unknown> {
  return JSON.parse(String(log.mock.calls.at(-1)?.[0])) as Record<string, unknown>;
}

beforeAll(async () => {
  await publishSeedCatalog();
});

describe("option filters in the deepObject form", () => {
  it.each([
    ["/products", "option[size]=M", "option.size=M"],
    [
      "/products",
      "option[size]=M&option[size]=3XL&option[color]=black",
      "option.color=Black&option.size=3XL&option.size=M",
    ],
    ["/products", "option[Size]=m&option.size=L", "option.size=L&option.size=M"],
    ["/products/facets", "option[color]=White", "option.color=White"],
    ["/collections/frontpage", "option[size]=XS&limit=3", "limit=3&option.size=XS"],
    ["/collections/frontpage/facets", "option[size]=XS", "option.size=XS"],
  ])("answers %s?%s as ?%s, from one cache entry", async (path, deep, dotted) => {
    const first = await get(`${path}?${dotted}`);
    expect(first.res.status).toBe(200);
    const log = vi.spyOn(console, "log");
    const second = await get(`${path}?${deep}`);
    expect(second.res.status, second.text).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.res.headers.get("etag")).toBe(first.res.headers.get("etag"));
    expect(lastLogLine(log)).toMatchObject({ status: 200, cache: "hit" });
    log.mockRestore();
  });

  it("filters for real: option[size]=3XL matches only products with an available 3XL", async () => {
    const { text } = await get("/products?option[size]=3XL&limit=250");
    const handles = (JSON.parse(text) as { data: { handle: string }[] }).data.map((p) => p.handle);
    const all = (JSON.parse((await get("/products?limit=250")).text) as { data: unknown[] }).data.length;
    expect(handles.length).toBeGreaterThan(0);
    expect(handles.length).toBeLessThan(all);
  });

  it.each([
    ["option[]=M", "parameter_unknown"],
    ["option[a.b]=M", "parameter_unknown"],
    ["option[size]=", "parameter_invalid"],
    ["option[size][x]=M", "parameter_unknown"],
    ["option[no-such-option]=M", "parameter_unknown"],
  ])("refuses %s with 400 %s", async (query, code) => {
    const { res, text } = await get(`/products?${query}`);
    expect(res.status, text).toBe(400);
    expect((JSON.parse(text) as { error: { code: string } }).error.code).toBe(code);
  });
});
