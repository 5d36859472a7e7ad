import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { Hono } from "hono";
import { describe as describeRoute, describedOperations, toOpenApiPath } from "../../src/openapi/describe.ts";
import { buildDocument } from "../../src/openapi/document.ts";
import { CART_WRITE_ERRORS, errors } from "../../src/openapi/errors.ts";
import { SchemaComponents } from "../../src/openapi/json-schema.ts";
import type { OperationDoc, OperationSpec } from "../../src/openapi/spec.ts";

const INFO = { title: "t", version: "1", description: "d", tags: [{ name: "T", description: "t" }] };

describe("OpenAPI builder", () => {
  it("turns Hono path parameters into OpenAPI templates", () => {
    expect(toOpenApiPath("/api/v1/cart/lines/:line_id")).toBe("/api/v1/cart/lines/{line_id}");
    expect(toOpenApiPath("/api/v1/products/:handle/variants")).toBe("/api/v1/products/{handle}/variants");
  });

  it("hoists named schemas into components and references them", () => {
    const Money = z.object({ amount: z.string() }).register(z.globalRegistry, { id: "TestMoney" });
    const Line = z.object({ price: Money, total: Money }).register(z.globalRegistry, { id: "TestLine" });
    const components = new SchemaComponents();
    expect(components.add(Line, "output")).toEqual({ $ref: "#/components/schemas/TestLine" });
    expect(components.schemas.TestLine?.properties).toEqual({
      price: { $ref: "#/components/schemas/TestMoney" },
      total: { $ref: "#/components/schemas/TestMoney" },
    });
    expect(components.schemas.TestMoney).toMatchObject({ type: "object" });
  });

  it("keeps a request schema whose input differs from its output as <id>Input", () => {
    const Quantity = z
      .object({ quantity: z._default(z.number(), 1) })
      .register(z.globalRegistry, { id: "TestQuantity" });
    const components = new SchemaComponents();
    components.add(Quantity, "output");
    expect(components.add(Quantity, "input")).toEqual({ $ref: "#/components/schemas/TestQuantityInput" });
    expect(components.schemas.TestQuantity?.required).toEqual(["quantity"]);
    expect(components.schemas.TestQuantityInput?.required).toBeUndefined();
  });

  it("refuses two different response schemas under one id", () => {
    const components = new SchemaComponents();
    components.add(z.object({ a: z.string() }).register(z.globalRegistry, { id: "TestClash" }), "output");
    expect(() =>
      components.add(z.object({ b: z.string() }).register(z.globalRegistry, { id: "TestClash" }), "output"),
    ).toThrow(/TestClash/);
  });

  it("spreads path and strict query schemas into parameters, coerced values as clients send them", () => {
    const op: OperationSpec = {
      operationId: "getThing",
      summary: "s",
      tag: "T",
      auth: "bearer",
      params: z.strictObject({ id: z.string().register(z.globalRegistry, { description: "The id." }) }),
      query: z.strictObject({ limit: z.optional(z.coerce.number().check(z.int(), z.lte(9))), q: z.string() }),
      requestHeaders: [{ name: "Idempotency-Key" }],
      responses: { 200: { description: "ok", schema: z.object({ ok: z.boolean() }) }, ...errors("resource_missing") },
    };
    const doc = buildDocument(INFO, [{ method: "get", path: "/things/{id}", spec: op }]) as {
      paths: Record<string, Record<string, { parameters: unknown[]; security: unknown }>>;
    };
    const get = doc.paths["/things/{id}"]?.get;
    expect(get?.security).toEqual([{ bearerAuth: [] }]);
    expect(get?.parameters).toEqual([
      { name: "id", in: "path", required: true, description: "The id.", schema: { type: "string" } },
      {
        name: "limit",
        in: "query",
        required: false,
        schema: { type: "integer", maximum: 9, minimum: expect.any(Number) },
      },
      { name: "q", in: "query", required: true, schema: { type: "string" } },
      expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false }),
    ]);
  });

  it("documents a limit written as digits as the integer it is, so generated clients type it as a number", () => {
    const Limit = z
      .optional(
        z.pipe(z.string().check(z.regex(/^\d{1,4}$/)), z.coerce.number<string>().check(z.int(), z.gte(1), z.lte(250))),
      )
      .register(z.globalRegistry, { description: "Page size.", default: 50 });
    const components = new SchemaComponents();
    const query = components.add(z.strictObject({ limit: Limit }), "input", { inline: true }) as {
      properties: Record<string, unknown>;
    };
    expect(query.properties.limit).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 250,
      default: 50,
      description: "Page size.",
    });
  });

  it("spreads a named query schema into parameters without leaving an unreferenced component of it", () => {
    const Query = z.strictObject({ q: z.string() }).register(z.globalRegistry, { id: "TestQuery" });
    const doc = buildDocument(INFO, [
      {
        method: "get",
        path: "/q",
        spec: { operationId: "q", summary: "s", tag: "T", auth: "none", query: Query, responses: {} },
      },
    ]) as {
      components: { schemas: Record<string, unknown> };
    };
    // None: the 414 every operation answers (issue 42, point 19) holds the error envelope, whose id
    // src/routes/reference/schemas/http.ts attaches (not loaded by this file), so it is inline here.
    expect(Object.keys(doc.components.schemas)).toEqual([]);
  });

  // Changed: HEAD twins doubled the reference's sidebar; the guide states HEAD once.
  it("lists a GET once, with no HEAD twin", () => {
    const spec: OperationSpec = {
      operationId: "getThing",
      summary: "Get a thing",
      tag: "T",
      auth: "none",
      responses: {
        200: { description: "ok", schema: z.object({ ok: z.boolean() }), headers: ["ETag"] },
        ...errors("resource_missing"),
      },
    };
    const doc = buildDocument(INFO, [{ method: "get", path: "/thing", spec }]) as {
      paths: Record<
        string,
        Record<string, { operationId: string; responses: Record<string, { content?: unknown; headers?: unknown }> }>
      >;
    };
    expect(Object.keys(doc.paths["/thing"] ?? {})).toEqual(["get"]);
    expect(doc.paths["/thing"]?.get?.operationId).toBe("getThing");
  });

  it("reads each operation's method and path from the route that names it, its description by that name", () => {
    const doc: OperationDoc = { summary: "s", tag: "T", auth: "none", responses: {} };
    const sub = new Hono()
      .get("/:id", describeRoute("getThing"), (c) => c.text("x"))
      .post("/", (c) => c.text("undocumented"));
    const app = new Hono().use(async (_c, next) => next()).route("/things", sub);
    expect(
      describedOperations(app.routes, { getThing: doc }).map(({ method, path, spec }) => [
        method,
        path,
        spec.operationId,
      ]),
    ).toEqual([["get", "/things/{id}", "getThing"]]);
  });

  it("refuses a route whose name has no description, and a description no route names", () => {
    const doc: OperationDoc = { summary: "s", tag: "T", auth: "none", responses: {} };
    const app = new Hono().get("/thing", describeRoute("getThing"), (c) => c.text("x"));
    expect(() => describedOperations(app.routes, {})).toThrow(/"getThing", which has no description/);
    expect(() => describedOperations(app.routes, { getThing: doc, getGone: doc })).toThrow(
      /Descriptions no route names: getGone/,
    );
  });

  it("refuses two descriptions of one method and path", () => {
    const spec: OperationSpec = { operationId: "a", summary: "s", tag: "T", auth: "none", responses: {} };
    expect(() =>
      buildDocument(INFO, [
        { method: "post", path: "/a", spec },
        { method: "post", path: "/a", spec: { ...spec, operationId: "b" } },
      ]),
    ).toThrow(/described twice/);
  });

  it("gives every operation a 500 and narrows error examples to the codes it can answer", () => {
    const responses = errors("sold_out");
    expect(Object.keys(responses)).toEqual(["404", "500"]);
    expect(Object.keys(responses[404]?.examples ?? {})).toEqual(["sold_out"]);
    // The statuses come from the codes: one list per route, nothing to keep in step.
    const write = errors(...CART_WRITE_ERRORS, "quantity_exceeded");
    expect(Object.keys(write)).toEqual(["400", "401", "409", "422", "429", "500", "503"]);
    expect(Object.keys(write[409]?.examples ?? {})).toEqual(["idempotency_key_in_use"]);
  });
});
