import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import app from "../../src/dev.ts";
import { ErrorResponseSchema } from "../../src/http/errors.ts";
import { ERROR_STATUSES } from "../../src/openapi/errors.ts";
import { toOpenApiPath } from "../../src/openapi/describe.ts";
import { documentBytes } from "../../src/openapi/assets.ts";
import { ApiReference } from "../../src/openapi/openapi.ts";
import { OPERATION_DOCS } from "../../src/routes/reference/index.ts";
import { SEED_EXAMPLES } from "../../src/openapi/seed-examples.ts";
import { publishSeedCatalog, seedCatalog } from "../helpers/catalog.ts";
import { pagingNotIntegers, seedExampleProblems, seedNames, unusedComponents } from "./rules.ts";

const OPERATOR_AUTH = { Authorization: "Bearer test-operator-secret" };
/** The documents as the routes describe them, built here as `npm run docs:assets` builds them. */
const apiReference = new ApiReference(app.routes, OPERATION_DOCS);

import { fetchAs, ORIGIN as BASE } from "../helpers/worker.ts";
type Json = { [key: string]: unknown };
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Follows a local JSON pointer (`#/components/schemas/Cart`) through the document. */
function resolvePointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object" || !(key in node)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

function collectRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) collectRefs(item, out);
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") out.push(value);
      else collectRefs(value, out);
    }
  }
  return out;
}

/**
 * The parts of the OpenAPI 3.1 specification a generator can get wrong, checked by hand (no
 * validator package is installed): the root fields, path templates against path parameters,
 * operation ids, response keys and descriptions, parameter locations, security and tag
 * references, media types and examples, and that every `$ref` resolves inside the document.
 * Returns the problems found; an empty list means the document is structurally sound.
 */
function structuralProblems(doc: Json): string[] {
  const problems: string[] = [];
  const fail = (message: string) => problems.push(message);
  if (typeof doc.openapi !== "string" || !/^3\.1\.\d+$/.test(doc.openapi)) fail("openapi is not 3.1.x");
  const info = doc.info as Json | undefined;
  if (!info || typeof info.title !== "string" || typeof info.version !== "string")
    fail("info.title and info.version are required strings");
  const components = (doc.components ?? {}) as Json;
  const schemes = (components.securitySchemes ?? {}) as Record<string, Json>;
  for (const [name, scheme] of Object.entries(schemes)) {
    if (!["apiKey", "http", "mutualTLS", "oauth2", "openIdConnect"].includes(String(scheme.type)))
      fail(`security scheme ${name} has an invalid type`);
    if (scheme.type === "http" && typeof scheme.scheme !== "string")
      fail(`http security scheme ${name} needs a scheme`);
  }
  for (const name of Object.keys((components.schemas ?? {}) as Json)) {
    if (!/^[a-zA-Z0-9.\-_]+$/.test(name)) fail(`component name ${name} is not allowed`);
  }
  const declaredTags = new Set(((doc.tags ?? []) as Json[]).map((t) => t.name));
  const operationIds = new Set<string>();
  const paths = doc.paths as Record<string, Json> | undefined;
  if (!paths || typeof paths !== "object") return [...problems, "paths is missing"];
  for (const [path, item] of Object.entries(paths)) {
    if (!path.startsWith("/")) fail(`path ${path} does not start with /`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const [method, value] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!METHODS.includes(method)) {
        fail(`${where}: ${method} is not an HTTP method field`);
        continue;
      }
      const op = value as Json;
      if (typeof op.operationId !== "string" || operationIds.has(op.operationId))
        fail(`${where}: operationId missing or not unique`);
      operationIds.add(String(op.operationId));
      for (const tag of (op.tags ?? []) as string[])
        if (!declaredTags.has(tag)) fail(`${where}: tag ${tag} is not declared`);
      for (const requirement of (op.security ?? []) as Json[]) {
        for (const name of Object.keys(requirement))
          if (!(name in schemes)) fail(`${where}: security scheme ${name} is not defined`);
      }
      const params = (op.parameters ?? []) as Json[];
      const seen = new Set<string>();
      for (const p of params) {
        if (!["query", "header", "path", "cookie"].includes(String(p.in)))
          fail(`${where}: parameter ${String(p.name)} has in=${String(p.in)}`);
        if (typeof p.name !== "string") fail(`${where}: a parameter has no name`);
        if (seen.has(`${String(p.in)}:${String(p.name)}`))
          fail(`${where}: parameter ${String(p.name)} is listed twice`);
        seen.add(`${String(p.in)}:${String(p.name)}`);
        if (p.in === "path" && p.required !== true) fail(`${where}: path parameter ${String(p.name)} must be required`);
        if (!("schema" in p) === !("content" in p))
          fail(`${where}: parameter ${String(p.name)} needs exactly one of schema and content`);
      }
      const pathParams = params.filter((p) => p.in === "path").map((p) => p.name);
      if ([...templated].sort().join() !== [...pathParams].sort().join())
        fail(`${where}: path template and path parameters differ`);
      const body = op.requestBody as Json | undefined;
      if (body && Object.keys((body.content ?? {}) as Json).length === 0) fail(`${where}: requestBody has no content`);
      const responses = op.responses as Record<string, Json> | undefined;
      if (!responses || Object.keys(responses).length === 0) fail(`${where}: no responses`);
      for (const [status, response] of Object.entries(responses ?? {})) {
        if (!/^([1-5](\d\d|XX)|default)$/.test(status)) fail(`${where}: response key ${status} is not a status code`);
        if (typeof response.description !== "string") fail(`${where} ${status}: a response needs a description`);
        for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
          if (!/^[a-z]+\/[a-z0-9.+-]+$/.test(type)) fail(`${where} ${status}: ${type} is not a media type`);
          for (const [name, example] of Object.entries((media.examples ?? {}) as Record<string, Json>)) {
            if (!("value" in example) && !("externalValue" in example) && !("$ref" in example))
              fail(`${where} ${status}: example ${name} has no value`);
          }
        }
      }
    }
  }
  for (const ref of collectRefs(doc)) if (resolvePointer(doc, ref) === undefined) fail(`$ref ${ref} does not resolve`);
  return problems;
}

async function fetchDocument(): Promise<Json> {
  const res = await exports.default.fetch(`${BASE}/api/v1/openapi.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

describe("GET /api/v1/openapi.json", () => {
  let doc: Json;
  beforeAll(async () => {
    doc = await fetchDocument();
  });

  it("is a structurally valid OpenAPI 3.1 document", () => {
    expect(structuralProblems(doc)).toEqual([]);
  });

  it("finds the problems it looks for, so a broken document cannot pass", () => {
    const broken = structuredClone(doc);
    broken.openapi = "3.0.3";
    const paths = broken.paths as Record<string, Record<string, Json>>;
    const detail = paths["/api/v1/products/{handle}"]?.get as Json;
    detail.parameters = [];
    (detail.responses as Json)["200"] = {
      content: { "application/json": { schema: { $ref: "#/components/schemas/Nope" } } },
    };
    const problems = structuralProblems(broken);
    expect(problems).toContain("openapi is not 3.1.x");
    expect(problems).toContain("GET /api/v1/products/{handle}: path template and path parameters differ");
    expect(problems).toContain("GET /api/v1/products/{handle} 200: a response needs a description");
    expect(problems).toContain("$ref #/components/schemas/Nope does not resolve");
  });

  // Changed: HEAD is no longer listed as a twin of every GET (it doubled the sidebar).
  it("documents every route the app serves in one of the two documents, and no route it does not", async () => {
    const served = new Set(
      app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method.toLowerCase()} ${toOpenApiPath(r.path)}`),
    );
    const operatorDoc = (await (
      await exports.default.fetch(`${BASE}/api/v1/operator/openapi.json`, { headers: OPERATOR_AUTH })
    ).json()) as Json;
    const documented: string[] = [];
    for (const document of [doc, operatorDoc]) {
      for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
        for (const method of Object.keys(item)) documented.push(`${method} ${path}`);
      }
    }
    expect(documented.sort()).toEqual([...served].sort());
  });

  it("has every route described once, beside it: one describe() per method and path", () => {
    const routes = new Set(
      app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${toOpenApiPath(r.path)}`),
    );
    const described = apiReference.operations.map((op) => `${op.method.toUpperCase()} ${op.path}`);
    expect(described.sort()).toEqual([...routes].sort());
  });

  it("keeps the operator's endpoints out of the public document and in their own", async () => {
    const paths = Object.keys(doc.paths as Json);
    expect(paths.filter((p) => p.includes("/operator"))).toEqual([]);
    expect(Object.keys(((doc.components as Json).securitySchemes ?? {}) as Json)).not.toContain("operatorAuth");
    expect(JSON.stringify(doc)).not.toMatch(/Token(Record|List)|IssuedToken/);
    const res = await exports.default.fetch(`${BASE}/api/v1/operator/openapi.json`, { headers: OPERATOR_AUTH });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const operatorDoc = (await res.json()) as Json;
    expect(Object.keys(operatorDoc.paths as Json).sort()).toEqual([
      "/api/v1/operator/catalog/changes",
      "/api/v1/operator/catalog/releases",
      "/api/v1/operator/catalog/versions/{version}/products/{handle}",
      "/api/v1/operator/checkouts/{id}/complete",
      "/api/v1/operator/discounts",
      "/api/v1/operator/openapi.json",
      "/api/v1/operator/order-events",
      "/api/v1/operator/orders",
      "/api/v1/operator/orders/{id}",
      "/api/v1/operator/reconciliation",
      "/api/v1/operator/rules",
      "/api/v1/operator/rules/rollback",
      "/api/v1/operator/rules/versions",
      "/api/v1/operator/stock",
      "/api/v1/operator/stock/{variant_id}",
      "/api/v1/operator/tokens",
      "/api/v1/operator/tokens/revoke",
      "/api/v1/operator/tokens/revoke-shopper",
      "/api/v1/operator/tokens/{id}/revoke",
      "/api/v1/operator/tokens/{id}/rotate",
    ]);
    for (const item of Object.values(operatorDoc.paths as Record<string, Record<string, Json>>)) {
      for (const op of Object.values(item)) expect(op.security).toEqual([{ operatorAuth: [] }]);
    }
  });

  it("serves the operator's document only with the operator secret", async () => {
    expect((await exports.default.fetch(`${BASE}/api/v1/operator/openapi.json`)).status).toBe(401);
    expect(
      (
        await exports.default.fetch(`${BASE}/api/v1/operator/openapi.json`, {
          headers: { Authorization: "Bearer sf_dev_LocalToken_A1" },
        })
      ).status,
    ).toBe(401);
  });

  it("declares every status the server answers: 400 on a product, 503 on adding to the cart", () => {
    const paths = doc.paths as Record<string, Record<string, Json>>;
    expect(Object.keys(paths["/api/v1/products/{handle}"]?.get?.responses as Json)).toContain("400");
    expect(Object.keys(paths["/api/v1/cart/lines"]?.post?.responses as Json)).toContain("503");
  });

  // A `head` twin beside every `get` doubled the reference's sidebar. HEAD still works
  // wherever GET does (the conformance suite sends every GET case as HEAD too); the guide says so once.
  it("lists no HEAD operations, and says once that HEAD works wherever GET does", () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>))
      expect(Object.keys(item), path).not.toContain("head");
    expect(String((doc.info as Json).description)).toMatch(/\*\*HEAD\*\* works wherever GET does/);
  });

  // `option.<name>` was documented as two parameters, option.size and option.color, so a
  // generated client refused option.material. Then as one form-exploded object whose keys carried
  // the `option.` prefix, which openapi-fetch sent as option[option.size]=M (issue 33 point 8). It
  // is one deepObject parameter `option` whose keys are the option names: option[size]=M.
  it.each([
    "/api/v1/products",
    "/api/v1/products/facets",
    "/api/v1/collections/{handle}",
    "/api/v1/collections/{handle}/facets",
  ])("describes option.<name> on %s as a deepObject parameter that takes any option name", (path) => {
    const parameters = ((doc.paths as Record<string, Record<string, Json>>)[path]?.get?.parameters ?? []) as Json[];
    expect(parameters.map((p) => p.name)).not.toContain("option.size");
    expect(parameters.map((p) => p.name)).not.toContain("option.color");
    const option = parameters.find((p) => p.name === "option");
    expect(option).toMatchObject({
      in: "query",
      style: "deepObject",
      explode: true,
      required: false,
      schema: { type: "object" },
    });
    const schema = option?.schema as Json;
    const pattern = new RegExp(String((schema.propertyNames as Json).pattern));
    for (const name of ["size", "color", "material", "frame-style", "colour"])
      expect(pattern.test(name), name).toBe(true);
    for (const name of ["", "a b", "a.b", "option.size", "a[b]"]) expect(pattern.test(name), name).toBe(false);
    // A value, or a list of values of one name (issue 42, point 17).
    const values = schema.additionalProperties as { anyOf: Json[] };
    expect(values.anyOf[0]).toMatchObject({ type: "string", minLength: 1 });
    expect(values.anyOf[1]).toMatchObject({ type: "array", minItems: 1, items: { type: "string", minLength: 1 } });
    expect(schema.minProperties).toBe(1);
  });

  it("documents limit as an integer from 1 to 250, not a string", () => {
    const limits = Object.values(doc.paths as Record<string, Record<string, Json>>).flatMap((item) =>
      Object.values(item).flatMap((op) => ((op.parameters ?? []) as Json[]).filter((p) => p.name === "limit")),
    );
    expect(limits.length).toBeGreaterThanOrEqual(4);
    for (const limit of limits)
      expect(limit.schema).toEqual({ type: "integer", minimum: 1, maximum: 250, default: 50 });
  });

  it("documents every paging size as an integer, so generated clients type it as a number", () => {
    expect(pagingNotIntegers(doc)).toEqual([]);
    const broken = structuredClone(doc);
    const list = (broken.paths as Record<string, Record<string, Json>>)["/api/v1/collections"]?.get as Json;
    (list.parameters as Json[]).push({ name: "page", in: "query", schema: { type: "string", pattern: "^\\d{1,3}$" } });
    expect(pagingNotIntegers(broken)).toEqual([
      "GET /api/v1/collections: query parameter page is not documented as an integer",
    ]);
  });

  it("has no component that nothing refers to", async () => {
    expect(unusedComponents(doc)).toEqual([]);
    const operatorDoc = (await (
      await exports.default.fetch(`${BASE}/api/v1/operator/openapi.json`, { headers: OPERATOR_AUTH })
    ).json()) as Json;
    expect(unusedComponents(operatorDoc)).toEqual([]);
  });

  it("finds unused components, so the lint cannot pass a document that has them", () => {
    const broken = structuredClone(doc);
    const schemas = (broken.components as Json).schemas as Json;
    schemas.PageQuery = { type: "object", properties: { limit: { $ref: "#/components/schemas/DeadLimit" } } };
    schemas.DeadLimit = { type: "string" };
    expect(unusedComponents(broken)).toEqual(["#/components/schemas/PageQuery", "#/components/schemas/DeadLimit"]);
  });

  it("shows only seed-catalog data in its examples", () => {
    expect(seedExampleProblems(doc, seedNames(seedCatalog()))).toEqual([]);
  });

  it("finds examples that name data the seed does not hold", () => {
    const broken = structuredClone(doc);
    const schemas = (broken.components as Json).schemas as Record<string, Json>;
    (schemas.Handle as Json).example = "black-tee";
    (schemas.VariantIdInput as Json).example = "40000000001";
    expect(seedExampleProblems(broken, seedNames(seedCatalog()))).toEqual([
      "example: handle black-tee is not in the seed catalog",
      "example: variant 40000000001 is not in the seed catalog",
    ]);
  });

  it("describes every error status of the contract with the error envelope", () => {
    const seen = new Set<number>();
    // 412 and 428 are the rules document's (contract 10.1), which only the operator's document has.
    const operatorPaths = (apiReference.operatorDocument() as Json).paths as Record<string, Record<string, Json>>;
    for (const item of [
      ...Object.values(doc.paths as Record<string, Record<string, Json>>),
      ...Object.values(operatorPaths),
    ]) {
      for (const [method, op] of Object.entries(item)) {
        if (method === "head") continue;
        for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
          if (Number(status) < 400) continue;
          seen.add(Number(status));
          const media = (response.content as Record<string, Json>)["application/json"];
          // The envelope, its `code` narrowed to the codes this answer can carry (issue 42, point 17).
          const codes = Object.values(
            (media?.examples ?? {}) as Record<string, { value: { error: { code: string } } }>,
          ).map((example) => example.value.error.code);
          expect(media?.schema).toEqual({
            allOf: [
              { $ref: "#/components/schemas/ErrorResponse" },
              {
                type: "object",
                properties: { error: { type: "object", properties: { code: { type: "string", enum: codes } } } },
              },
            ],
          });
        }
      }
    }
    expect([...seen].sort()).toEqual([...ERROR_STATUSES].sort());
  });

  it("declares the Bearer scheme on every cart operation and none on catalog reads", () => {
    const paths = doc.paths as Record<string, Record<string, Json>>;
    const schemes = (doc.components as Json).securitySchemes as Record<string, Json>;
    expect(schemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    for (const [path, item] of Object.entries(paths)) {
      for (const op of Object.values(item)) {
        if (path === "/api/v1/cart" || path.startsWith("/api/v1/cart/"))
          expect(op.security).toEqual([{ bearerAuth: [] }]);
        // POST /carts is how a shopper gets a token: anonymous.
        if (path === "/api/v1/carts") expect(op.security).toEqual([]);
        if (path.startsWith("/api/v1/products") || path.startsWith("/api/v1/collections"))
          expect(op.security).toEqual([]);
      }
    }
  });

  it("documents Idempotency-Key on every cart write", () => {
    const paths = doc.paths as Record<string, Record<string, Json>>;
    const writes = Object.entries(paths)
      .filter(([path]) => path === "/api/v1/cart" || path.startsWith("/api/v1/cart/"))
      .flatMap(([, item]) => Object.entries(item).filter(([method]) => method !== "get" && method !== "head"));
    expect(writes.length).toBe(5);
    for (const [, op] of writes) {
      expect(op.parameters as Json[]).toContainEqual(
        expect.objectContaining({ name: "Idempotency-Key", in: "header" }),
      );
    }
  });

  it("turns the strict query schemas into query parameters", () => {
    const list = (doc.paths as Record<string, Record<string, Json>>)["/api/v1/products"]?.get as Json;
    const names = (list.parameters as Json[]).filter((p) => p.in === "query").map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(["limit", "starting_after", "ending_before"]));
  });

  it("is cacheable and readable from any origin", async () => {
    const res = await exports.default.fetch(`${BASE}/api/v1/openapi.json`, {
      headers: { Origin: "https://elsewhere.example" },
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toContain("public");
    expect(res.headers.get("content-type")).toContain("application/json");
  });
});

describe("the served documents are the ones the routes describe", () => {
  // The worker serves what `npm run docs:assets` built (npm test, dev and deploy run it first); a
  // describe() or schema changed since then must not pass with the old document.
  it.each([
    ["/api/v1/openapi.json", {}, () => apiReference.publicDocument(), "public, max-age=300"],
    ["/api/v1/operator/openapi.json", OPERATOR_AUTH, () => apiReference.operatorDocument(), "no-store"],
  ] as const)("%s: the document built from app.routes, byte for byte", async (path, headers, build, cache) => {
    const res = await exports.default.fetch(`${BASE}${path}`, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe(cache);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const served = await res.text();
    expect(served === documentBytes(build()), `${path} is stale: run npm run docs:assets`).toBe(true);
  });

  it("answers HEAD with the GET's headers and no body", async () => {
    const res = await exports.default.fetch(`${BASE}/api/v1/openapi.json`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.text()).toBe("");
  });

  // The assets as a worker started without `npm run docs:assets` has them: the rest of public/, no documents.
  const withoutDocuments = {
    ASSETS: {
      fetch: (input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        if (new URL(request.url).pathname.startsWith("/openapi/"))
          return Promise.resolve(new Response(null, { status: 404 }));
        return env.ASSETS.fetch(request);
      },
    } as unknown as Fetcher,
  };

  it.each([
    ["/api/v1/openapi.json", {}],
    ["/api/v1/operator/openapi.json", OPERATOR_AUTH],
  ] as const)(
    "%s without its generated file: a 500 in the envelope that says how to build it",
    async (path, headers) => {
      const logged: string[] = [];
      const spy = vi.spyOn(console, "error").mockImplementation((line: unknown) => void logged.push(String(line)));
      const res = await fetchAs("production", path, { headers }, withoutDocuments).finally(() => spy.mockRestore());
      expect(logged).toHaveLength(1);
      expect(JSON.parse(logged[0]!)).toMatchObject({ level: "error", error: "OpenApiDocumentMissing" });
      expect(res.status).toBe(500);
      const body = ErrorResponseSchema.parse(await res.json());
      expect(body.error).toMatchObject({ type: "api_error", code: "openapi_document_missing" });
      expect(body.error.message).toContain("npm run docs:assets");
      expect(body.error.request_id).toBe(res.headers.get("x-request-id"));
      expect(JSON.stringify(body)).not.toMatch(/\bat .*:\d+:\d+|Error:/);
    },
  );

  it("still asks for the operator secret before it looks for the operator's document", async () => {
    const res = await fetchAs("production", "/api/v1/operator/openapi.json", {}, withoutDocuments);
    expect(res.status).toBe(401);
  });
});

describe("examples taken from the seed catalog", () => {
  beforeAll(async () => {
    await publishSeedCatalog();
  });

  const cases: [string, string, unknown][] = [
    ["the product list", "/api/v1/products?limit=2", SEED_EXAMPLES.productList],
    ["the product detail", "/api/v1/products/essential-crew-tee-black", SEED_EXAMPLES.product],
    [
      "the variant selection",
      "/api/v1/products/essential-crew-tee-black/variants?size=M&color=Black",
      SEED_EXAMPLES.variantList,
    ],
    ["the placeholder collection", "/api/v1/collections/sample-products", SEED_EXAMPLES.collection],
  ];
  it.each(cases)("match what the API answers for %s", async (_name, path, example) => {
    const res = await exports.default.fetch(`${BASE}${path}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(example);
  });

  it("validate against the schemas of the operations that show them", () => {
    for (const { spec: op } of apiReference.operations) {
      for (const response of Object.values(op.responses)) {
        for (const example of Object.values(response.examples ?? {})) {
          expect(response.schema?.safeParse(example.value).success, `${op.operationId}: ${example.summary}`).toBe(true);
        }
      }
      for (const example of Object.values(op.body?.examples ?? {})) {
        expect(op.body?.schema.safeParse(example.value).success, `${op.operationId} body: ${example.summary}`).toBe(
          true,
        );
      }
    }
  });
});
