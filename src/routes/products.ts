import { Hono } from "../http/hono.ts";
import { included, type ProductInclude, ProductQuerySchema, VariantQuerySchema } from "../catalog/api.ts";
import { productDetail, productListPage, variantList } from "../catalog/pages.ts";
import { parseBrowseFacets, parseBrowsePage } from "../browse/query.ts";
import { browseRead } from "../http/browse-read.ts";
import { serveBrowsePage, serveFacets } from "./browse-handlers.ts";
import { catalogRead, serveCatalogRead } from "../http/catalog-read.ts";
import type { AppEnv } from "../http/app-env.ts";
import { describe } from "../openapi/describe.ts";

/** Anonymous product reads, cached at the edge per catalog version. */
export const products = new Hono<AppEnv>()
  .get("/", describe("listProducts"), browseRead(parseBrowsePage), (c) =>
    serveBrowsePage(c, c.req.valid("query"), {}, productListPage),
  )
  .get("/facets", describe("getProductFacets"), browseRead(parseBrowseFacets), (c) =>
    serveFacets(c, c.req.valid("query"), {}),
  )
  .get("/:handle", describe("getProduct"), catalogRead(ProductQuerySchema), (c) =>
    serveCatalogRead(
      c,
      c.req.valid("query"),
      (store, meta, q) => productDetail(store, meta, c.req.param("handle"), included<ProductInclude>(q.include)),
      { stock: { product: c.req.param("handle") } },
    ),
  )
  .get("/:handle/variants", describe("listProductVariants"), catalogRead(VariantQuerySchema), (c) =>
    serveCatalogRead(c, c.req.valid("query"), (store, meta, q) => variantList(store, meta, c.req.param("handle"), q), {
      stock: { product: c.req.param("handle") },
      paging: { cursor: "id" },
    }),
  );
