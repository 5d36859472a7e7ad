import {
  CollectionListSchema,
  CollectionSchema,
  HandleParamSchema,
  PageQuerySchema,
  ProductListSchema,
  ProductSchema,
  VariantListSchema,
  VariantQuerySchema,
} from "../../catalog/api.ts";
import { errors } from "../errors.ts";
import { SEED_EXAMPLES } from "../seed-examples.ts";
import type { OperationSpec, ResponseSpec } from "../spec.ts";

const IF_NONE_MATCH = [{ name: "If-None-Match" }] as const;
const CATALOG_HEADERS = ["X-Request-Id", "Cache-Control", "ETag", "X-Catalog-Version"] as const;

function ok(description: string, schema: ResponseSpec["schema"], examples?: ResponseSpec["examples"]): ResponseSpec {
  return { description, schema, headers: CATALOG_HEADERS, ...(examples ? { examples } : {}) };
}

const NOT_MODIFIED: ResponseSpec = {
  description: "The `If-None-Match` ETag still matches: no body.",
  headers: ["X-Request-Id", "Cache-Control", "ETag", "X-Catalog-Version"],
};

const CACHING =
  "Anonymous and cached at the edge under the published catalog version; answers carry `ETag` and `X-Catalog-Version`, and `If-None-Match` answers 304.";

/** The anonymous catalog reads (contract section 2). */
export const catalogOperations: OperationSpec[] = [
  {
    method: "get",
    path: "/api/v1/products",
    operationId: "listProducts",
    summary: "List products",
    description: `Every product in catalog order, sold-out ones included (with \`available: false\`). ${CACHING}`,
    tag: "Catalog",
    auth: "none",
    query: PageQuerySchema,
    requestHeaders: IF_NONE_MATCH,
    responses: {
      200: ok("A page of products.", ProductListSchema, { page: { summary: "The first two products", value: SEED_EXAMPLES.productList } }),
      304: NOT_MODIFIED,
      ...errors([400, 503]),
    },
  },
  {
    method: "get",
    path: "/api/v1/products/:handle",
    operationId: "getProduct",
    summary: "Get a product",
    description: `One product by handle. A sold-out product answers 404 \`sold_out\` (message \`Sold out\`), an unknown handle 404 \`resource_missing\`. ${CACHING}`,
    tag: "Catalog",
    auth: "none",
    params: HandleParamSchema,
    requestHeaders: IF_NONE_MATCH,
    responses: {
      200: ok("The product.", ProductSchema, { sized: { summary: "A sized product", value: SEED_EXAMPLES.product } }),
      304: NOT_MODIFIED,
      ...errors([404, 503], ["resource_missing", "sold_out"]),
    },
  },
  {
    method: "get",
    path: "/api/v1/products/:handle/variants",
    operationId: "listProductVariants",
    summary: "List a product's variants",
    description: `The variants of a product, filtered by the size/color/title selectors. Answers 200 for sold-out products too (every variant \`available: false\`), so a storefront can draw a greyed-out picker. ${CACHING}`,
    tag: "Catalog",
    auth: "none",
    params: HandleParamSchema,
    query: VariantQuerySchema,
    requestHeaders: IF_NONE_MATCH,
    responses: {
      200: ok("The matching variants.", VariantListSchema, { selected: { summary: "?size=M&color=Black", value: SEED_EXAMPLES.variantList } }),
      304: NOT_MODIFIED,
      ...errors([400, 404, 503], ["parameter_invalid", "parameter_unknown", "resource_missing"]),
    },
  },
  {
    method: "get",
    path: "/api/v1/collections",
    operationId: "listCollections",
    summary: "List collections",
    description: `Every collection in catalog order. ${CACHING}`,
    tag: "Catalog",
    auth: "none",
    query: PageQuerySchema,
    requestHeaders: IF_NONE_MATCH,
    responses: {
      200: ok("A page of collections.", CollectionListSchema),
      304: NOT_MODIFIED,
      ...errors([400, 503]),
    },
  },
  {
    method: "get",
    path: "/api/v1/collections/:handle",
    operationId: "getCollection",
    summary: "Get a collection",
    description: `A collection with one page of its products; each says what its product endpoint answers (\`endpoint_status\` 200, or 404 when sold out). ${CACHING}`,
    tag: "Catalog",
    auth: "none",
    params: HandleParamSchema,
    query: PageQuerySchema,
    requestHeaders: IF_NONE_MATCH,
    responses: {
      200: ok("The collection and a page of its products.", CollectionSchema, {
        placeholders: { summary: "The collection of the four placeholder products", value: SEED_EXAMPLES.collection },
      }),
      304: NOT_MODIFIED,
      ...errors([400, 404, 503], ["parameter_invalid", "parameter_unknown", "resource_missing"]),
    },
  },
];
