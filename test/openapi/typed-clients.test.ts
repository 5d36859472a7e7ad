import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { FacetsSchema } from "../../src/browse/api.ts";
import { publishSeedCatalog } from "../helpers/catalog.ts";
import { API, ORIGIN } from "../helpers/worker.ts";

/**
 * Issue 33 point 10, types a client can use: a boolean query parameter is typed boolean in the
 * document (`available` was the strings "true"/"false"), and every facet carries a discriminator
 * (`type`: `values` or `range`) that the document names, so a typed client narrows a facet
 * without testing for `values` in it.
 */

type Json = Record<string, unknown>;
let doc: { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json> } };

beforeAll(async () => {
  await publishSeedCatalog();
  doc = (await (await exports.default.fetch(`${ORIGIN}/api/v1/openapi.json`)).json()) as typeof doc;
});

function queryParameters(): { where: string; name: string; schema: Json }[] {
  const out: { where: string; name: string; schema: Json }[] = [];
  for (const [path, methods] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(methods))
      for (const p of (op.parameters ?? []) as { name: string; in: string; schema: Json }[])
        if (p.in === "query") out.push({ where: `${method} ${path}`, name: p.name, schema: p.schema });
  return out;
}

describe("types a client can use", () => {
  it("types available as a boolean wherever it is taken, and no parameter as the strings true/false", () => {
    const params = queryParameters();
    const available = params.filter((p) => p.name === "available");
    expect(available.length).toBeGreaterThanOrEqual(4);
    for (const p of available) expect(p.schema, p.where).toEqual({ type: "boolean" });
    for (const p of params)
      expect(JSON.stringify(p.schema), `${p.where} ${p.name}`).not.toMatch(/"enum":\["true","false"\]/);
  });

  it("still reads available=true and available=false, and refuses anything else", async () => {
    const yes = (await (await exports.default.fetch(`${API}/products?available=true&limit=250`)).json()) as {
      data: { available: boolean }[];
    };
    const no = (await (await exports.default.fetch(`${API}/products?available=false&limit=250`)).json()) as {
      data: { available: boolean }[];
    };
    expect(yes.data.length).toBeGreaterThan(0);
    expect(no.data.length).toBeGreaterThan(0);
    expect(yes.data.every((p) => p.available)).toBe(true);
    expect(no.data.every((p) => !p.available)).toBe(true);
    for (const bad of ["1", "TRUE", "yes", ""]) {
      const res = await exports.default.fetch(`${API}/products?available=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as { error: Json }).error).toMatchObject({ param: "available" });
    }
  });

  it("gives every facet a type, values or range, matching its shape", async () => {
    for (const path of ["/products/facets", "/products/facets?tag=cotton", "/collections/frontpage/facets"]) {
      const body = (await (await exports.default.fetch(`${API}${path}`)).json()) as {
        facets: (Json & { type: string })[];
      };
      FacetsSchema.parse(body);
      for (const facet of body.facets) {
        if (facet.name === "price") expect(Object.keys(facet), path).toEqual(["name", "type", "min", "max"]);
        else expect(Object.keys(facet), path).toEqual(["name", "type", "values"]);
        expect(facet.type).toBe(facet.name === "price" ? "range" : "values");
      }
    }
  });

  it("documents the facet discriminator", () => {
    const facets = (doc.components.schemas.Facets as { properties: { facets: { items: Json } } }).properties.facets;
    const items = facets.items as { oneOf: { properties: { type: Json } }[]; discriminator: Json };
    expect(items.discriminator).toEqual({ propertyName: "type" });
    expect(items.oneOf.map((branch) => branch.properties.type.const)).toEqual(["values", "range"]);
  });

  // Issue 33 point 7: Scalar's Test Request sends every example at once (test/browser/try-requests.test.ts).
  it("gives no example a first request would fail with: no catalog_version, no cursor, collections by a collection's handle", () => {
    const resolve = (schema: Json): Json => {
      const ref = schema.$ref;
      return typeof ref === "string" ? (doc.components.schemas[ref.split("/").at(-1)!] as Json) : schema;
    };
    for (const [path, methods] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(methods))
        for (const p of (op.parameters ?? []) as { name: string; in: string; schema: Json; example?: unknown }[]) {
          const example = p.example ?? resolve(p.schema).example;
          if (["catalog_version", "starting_after", "ending_before"].includes(p.name))
            expect(example, `${method} ${path} ${p.name}`).toBeUndefined();
          if (p.in === "path" && p.name === "handle" && path.startsWith("/api/v1/collections/"))
            expect(example, `${method} ${path}`).toBe("frontpage");
        }
  });
});
