import { Hono } from "hono";
import { HandleParamSchema, NoQuerySchema, PageQuerySchema, ProductListSchema, ProductSchema, VariantListSchema, VariantQuerySchema } from "../catalog/api.ts";
import { productDetail, productListPage, variantList } from "../catalog/pages.ts";
import { catalogRead, serveCatalogRead } from "../http/catalog-read.ts";
import type { AppEnv } from "../http/app-env.ts";
import { describe } from "../openapi/describe.ts";
import { errors } from "../openapi/errors.ts";
import { CACHING, CATALOG_NOT_MODIFIED, catalogOk, IF_NONE_MATCH } from "../openapi/responses.ts";
import { SEED_EXAMPLES } from "../openapi/seed-examples.ts";

/** Anonymous product reads, cached at the edge per catalog version (contract section 2). */
export const products = new Hono<AppEnv>()
  .get(
    "/",
    describe({
      operationId: "listProducts",
      summary: "List products",
      description: `Every product in catalog order, sold-out ones included (with \`available: false\`). ${CACHING}`,
      tag: "Catalog",
      auth: "none",
      query: PageQuerySchema,
      requestHeaders: IF_NONE_MATCH,
      responses: {
        200: catalogOk("A page of products.", ProductListSchema, { page: { summary: "The first two products", value: SEED_EXAMPLES.productList } }),
        304: CATALOG_NOT_MODIFIED,
        ...errors([400, 503], ["parameter_unknown", "parameter_invalid"]),
      },
    }),
    catalogRead(PageQuerySchema),
    (c) => serveCatalogRead(c, c.req.valid("query"), productListPage),
  )
  .get(
    "/:handle",
    describe({
      operationId: "getProduct",
      summary: "Get a product",
      description: `One product by handle. A sold-out product answers 404 \`sold_out\` (message \`Sold out\`), an unknown handle 404 \`resource_missing\`. ${CACHING}`,
      tag: "Catalog",
      auth: "none",
      params: HandleParamSchema,
      query: NoQuerySchema,
      requestHeaders: IF_NONE_MATCH,
      responses: {
        200: catalogOk("The product.", ProductSchema, { sized: { summary: "A sized product", value: SEED_EXAMPLES.product } }),
        304: CATALOG_NOT_MODIFIED,
        ...errors([400, 404, 503], ["parameter_unknown", "parameter_invalid", "resource_missing", "sold_out"]),
      },
    }),
    catalogRead(NoQuerySchema),
    (c) => serveCatalogRead(c, c.req.valid("query"), (store, meta) => productDetail(store, meta, c.req.param("handle"))),
  )
  .get(
    "/:handle/variants",
    describe({
      operationId: "listProductVariants",
      summary: "List a product's variants",
      description: `The variants of a product, filtered by the size/color/title selectors. Answers 200 for sold-out products too (every variant \`available: false\`), so a storefront can draw a greyed-out picker. ${CACHING}`,
      tag: "Catalog",
      auth: "none",
      params: HandleParamSchema,
      query: VariantQuerySchema,
      requestHeaders: IF_NONE_MATCH,
      responses: {
        200: catalogOk("The matching variants.", VariantListSchema, { selected: { summary: "?size=M&color=Black", value: SEED_EXAMPLES.variantList } }),
        304: CATALOG_NOT_MODIFIED,
        ...errors([400, 404, 503], ["parameter_invalid", "parameter_unknown", "resource_missing"]),
      },
    }),
    catalogRead(VariantQuerySchema),
    (c) => serveCatalogRead(c, c.req.valid("query"), (store, meta, q) => variantList(store, meta, c.req.param("handle"), q)),
  );
