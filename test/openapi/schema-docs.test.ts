import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import app from "../../src/index.ts";
import { MoneySchema } from "../../src/money.ts";
import { describe as describeRoute } from "../../src/openapi/describe.ts";
import { buildDocument } from "../../src/openapi/document.ts";
import { ApiReference, undocumented } from "../../src/openapi/openapi.ts";
import { documentSchema } from "../../src/openapi/schema-docs.ts";
import type { OperationSpec } from "../../src/openapi/spec.ts";
import { OPERATION_DOCS } from "../../src/routes/reference/index.ts";

const INFO = { title: "t", version: "1", description: "d", tags: [{ name: "T", description: "t" }] };

describe("schema documentation (src/routes/reference/schemas/)", () => {
  it("attaches each room's documentation to the very schema the Worker validates with", () => {
    // Loaded with the operations' descriptions; MoneySchema itself (src/money.ts) carries none.
    expect(OPERATION_DOCS).toHaveProperty("getProduct");
    expect(z.globalRegistry.get(MoneySchema)).toMatchObject({ id: "Money", description: expect.any(String) });
  });

  it("reaches a nested schema through the one that holds it", () => {
    const Thing = z.object({ name: z.optional(z.string()) });
    documentSchema(Thing.shape.name.def.innerType, { description: "The name." });
    expect(z.toJSONSchema(Thing)).toMatchObject({ properties: { name: { type: "string", description: "The name." } } });
  });

  // A renamed property would otherwise leave its prose attached to nothing, silently.
  it("refuses a path that reaches no schema", () => {
    const Thing = z.object({ name: z.string() });
    const renamed = (Thing.shape as Record<string, z.ZodMiniType | undefined>).title;
    expect(() => documentSchema(renamed, { description: "The title." })).toThrow(/No schema to document/);
  });

  // What a branch that still writes `.register(z.globalRegistry, …)` in Worker code meets once its
  // schema is documented here too.
  it("refuses a schema documented twice", () => {
    const Code = z.string().register(z.globalRegistry, { description: "Left in the Worker." });
    expect(() => documentSchema(Code, { description: "The code." })).toThrow(/documented twice/);
  });
});

describe("the document builder refuses what is undocumented", () => {
  const spec: OperationSpec = {
    operationId: "getThing",
    summary: "s",
    tag: "T",
    auth: "none",
    query: z.strictObject({ limit: z.optional(z.string()) }),
    body: { schema: z.object({ a: z.string() }) },
    responses: {
      200: { description: "ok", schema: z.object({ ok: z.boolean() }).register(z.globalRegistry, { id: "TestOk" }) },
      201: { description: "made", schema: z.object({ made: z.boolean() }) },
      // An error answer narrowed to its codes is still refused when the envelope it narrows has no id.
      409: { description: "clash", schema: z.object({ error: z.object({ code: z.string() }) }), codes: ["clash"] },
    },
  };

  it("names a parameter without a description and a body whose schema has no id", () => {
    const document = buildDocument(INFO, [{ method: "post", path: "/thing", spec }]);
    expect(undocumented(document)).toEqual([
      "getThing (POST /thing): the query parameter limit has no description",
      "getThing (POST /thing): the request body (application/json) is not a documented schema (no id)",
      "getThing (POST /thing): the 201 response (application/json) is not a documented schema (no id)",
      "getThing (POST /thing): the 409 response (application/json) is not a documented schema (no id)",
    ]);
  });

  it("refuses to build the app's document while anything in it is undocumented", () => {
    const { operationId: _id, ...doc } = spec;
    const thingApp = new Hono().post("/thing", describeRoute("getThing"), (c) => c.text("x"));
    expect(() => new ApiReference(thingApp.routes, { getThing: doc }).publicDocument()).toThrow(
      /src\/routes\/reference\/schemas\/<room>\.ts\):\ngetThing \(POST \/thing\): the query parameter limit/,
    );
  });

  it("finds nothing undocumented in the app's two documents", () => {
    const reference = new ApiReference(app.routes, OPERATION_DOCS);
    expect(undocumented(reference.publicDocument())).toEqual([]);
    expect(undocumented(reference.operatorDocument())).toEqual([]);
  });
});
