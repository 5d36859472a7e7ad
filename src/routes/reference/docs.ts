import * as z from "zod/mini";
import type { OperationDoc } from "../../openapi/spec.ts";
import { DocsFileParamsSchema } from "../docs.ts";
import { errors } from "../../openapi/errors.ts";
import type { ResponseSpec } from "../../openapi/spec.ts";

/** A file of the reference pages: markup, script, style sheet or icon. */
const DocsAssetSchema = z.string().check(z.minLength(1)).register(z.globalRegistry, {
  id: "DocsAsset",
  description: "A file of the API reference or the catalog walk-through.",
});

/** The reference's files are static assets that revalidate with their ETag. */
const DOCS_HEADERS = ["X-Request-Id", "Cache-Control", "ETag"] as const;

const IF_NONE_MATCH = [{ name: "If-None-Match" }] as const;

function file(description: string, contentType: string): ResponseSpec {
  return { description, schema: DocsAssetSchema, contentType, headers: DOCS_HEADERS };
}

const NOT_MODIFIED: ResponseSpec = {
  description: "`If-None-Match` matched the file's ETag: no body.",
  headers: DOCS_HEADERS,
};

/** The OpenAPI description of src/routes/docs.ts's operations, by operationId (never in the Worker bundle). */
export const DOCS_DOCS = {
  getRoot: {
    summary: "Redirect to the reference",
    tag: "Service",
    auth: "none",
    responses: { 302: { description: "To `/docs`.", headers: ["X-Request-Id", "Location"] } },
  },
  getDocs: {
    summary: "API reference",
    description:
      "This document rendered by [Scalar](https://github.com/scalar/scalar) (served from this " +
      "worker, never a CDN): every operation with its parameters, response examples, curl and " +
      "other client snippets, search, and a client whose “Test Request” calls this same " +
      "server. Under `npm run dev` the client's Bearer token is the development token " +
      "`sf_dev_LocalToken_A1`. The page's Content-Security-Policy keeps every request on this " +
      "origin. `/docs#authentication` opens the authentication section.",
    tag: "Service",
    auth: "none",
    requestHeaders: IF_NONE_MATCH,
    responses: { 200: file("The reference page.", "text/html"), 304: NOT_MODIFIED },
  },
  getDocsTry: {
    summary: "Try the catalog",
    description:
      "The seed's walk-through: list the products, pick one, choose its size and colour and " +
      "add it to the cart; an available variant answers 200, a sold-out one 404 Sold out. The " +
      "page gets its cart as a storefront would: a shopper token from `POST /api/v1/carts`, " +
      "kept in the browser's `localStorage` (and replaced by a renewed one when an answer " +
      "carries `Cart-Token`); any other token may be pasted. Every call goes to this same server.",
    tag: "Service",
    auth: "none",
    requestHeaders: IF_NONE_MATCH,
    responses: { 200: file("The walk-through page.", "text/html"), 304: NOT_MODIFIED },
  },
  getDocsFile: {
    summary: "A file of the reference pages",
    description:
      "Scripts and style sheets of `/docs` and `/docs/try`, served as static assets with a " +
      "five-minute `Cache-Control` and an ETag.",
    tag: "Service",
    auth: "none",
    params: DocsFileParamsSchema,
    requestHeaders: IF_NONE_MATCH,
    responses: {
      200: file("The file, as `text/javascript`, `text/css` or `image/svg+xml`.", "text/javascript"),
      304: NOT_MODIFIED,
      ...errors("route_not_found"),
    },
  },
  getFavicon: {
    summary: "The site icon",
    tag: "Service",
    auth: "none",
    requestHeaders: IF_NONE_MATCH,
    responses: { 200: file("An SVG icon.", "image/svg+xml"), 304: NOT_MODIFIED },
  },
} satisfies Record<string, OperationDoc>;
