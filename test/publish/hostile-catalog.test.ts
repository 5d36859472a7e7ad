import { env, exports } from "cloudflare:workers";
import fc from "fast-check";
import { Parser } from "htmlparser2";
import { beforeAll, describe, expect, it } from "vitest";
import { fuzzRuns } from "../hardening/run-config.ts";
import type { SourceCatalog } from "../../src/catalog/schema.ts";
import { formatReport, type ImportReport, importCatalog } from "../../src/publish/import/index.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { descriptionLoss, descriptionLossWarnings, prepareContent } from "../../src/publish/sanitize.ts";
import { API } from "../helpers/worker.ts";
import hostileCsv from "./fixtures/hostile.csv?raw";
import { DROPPED } from "./dropped-elements.ts";
import { issuesOf, STORE } from "./import-helpers.ts";

/**
 * A catalog whose every text field and URL carries markup or script, imported
 * and published as `catalog:import --publish` does, then read through the API. Text fields come
 * back verbatim (plain text: the client escapes), URLs normalised, description_text and the SEO
 * fallback with no < or >, description_html sanitised; a description cut short by an unclosed
 * element is named in the report. test/browser/hostile.test.ts renders the same file in Chromium.
 */

type Json = Record<string, unknown>;
const RUNS = fuzzRuns(300);
const UNSAFE_URL = /["'<>`\\\s]/;

async function get(path: string): Promise<Json> {
  const res = await exports.default.fetch(`${API}${path}`);
  expect(res.status, path).toBe(200);
  return (await res.json()) as Json;
}

/** Every tag a browser's tokenizer would see in `text` read as HTML. */
function tagsIn(text: string): string[] {
  const tags: string[] = [];
  const parser = new Parser({
    onopentagname: (name) => tags.push(name),
    onclosetag: (name, implied) => (implied ? undefined : tags.push(`/${name}`)),
    oncomment: () => tags.push("!--"),
  });
  parser.write(text);
  parser.end();
  return tags;
}

/** Every element of `html` with its attributes, as a browser's tokenizer would see them. */
function elementsIn(html: string): [string, Record<string, string>][] {
  const found: [string, Record<string, string>][] = [];
  const parser = new Parser({ onopentag: (name, attributes) => found.push([name, attributes]) });
  parser.write(html);
  parser.end();
  return found;
}

let catalog: SourceCatalog;
let report: ImportReport;

beforeAll(async () => {
  ({ catalog, report } = await importCatalog(hostileCsv, {
    file: "hostile.csv",
    store: STORE,
    collectionsByType: true,
  }));
  await publishCatalog(env.CATALOG, catalog, { browse: null });
});

describe("a hostile catalog, imported and published", () => {
  it("is the fixture it claims to be: markup in every text field, markup and quotes in every URL", () => {
    const [head, ...rows] = hostileCsv.trim().split("\n");
    expect(head).toContain("SEO Description");
    for (const needle of [
      "Title",
      "Vendor",
      "Type",
      "Tags",
      "Option1 Name",
      "Option1 Value",
      "Variant SKU",
      "Image Alt Text",
      "SEO Title",
      "SEO Description",
    ])
      expect(head).toContain(needle);
    expect(rows.join("\n")).toMatch(/https:\/\/cdn\.example\.com\/a\.jpg""><svg\/onload=/);
    expect(rows.join("\n")).toContain("&lt;img src=x onerror=");
    expect(rows.join("\n")).toContain('href=""javascript:');
  });

  it("stores and serves every URL normalised, with no quote, angle bracket, back-tick or space (regression: served as written)", async () => {
    const detail = await get("/products/hostile-tee?include=images,variants");
    const urls = [
      ...(detail.images as Json[]).map((i) => i.url),
      ...(detail.variants as Json[]).map((v) => v.image),
    ] as string[];
    expect(urls).toEqual([
      "https://cdn.example.com/a.jpg%22%3E%3Csvg/onload=__xss(%27image-url%27)%3E",
      "https://cdn.example.com/b.jpg%27onerror=%27__xss(%27image-url-quote%27)%27",
      "https://cdn.example.com/v.jpg?x=%22%3E%3Cscript%3E__xss(%27variant-image%27)%3C/script%3E",
      "https://cdn.example.com/w%60x.jpg#%22onload=__xss(%27variant-image-2%27)",
    ]);
    const list = await get("/products?include=image");
    const collection = await get("/collections/frontpage?include=image");
    const variants = await get("/products/hostile-tee/variants");
    const mug = await get("/products/cut-short-mug?include=images");
    const served = [
      ...urls,
      ...(list.data as Json[]).map((p) => (p.image as Json).url),
      ...((collection.products as Json).data as Json[]).map((p) => (p.image as Json).url),
      ...(variants.data as Json[]).map((v) => v.image),
      ...(mug.images as Json[]).map((i) => i.url),
    ] as string[];
    expect(served).toHaveLength(11);
    for (const url of served) {
      expect(url).not.toMatch(UNSAFE_URL);
      expect(new URL(url).href).toBe(url);
    }
    expect((mug.images as Json[])[0]?.url).toBe("https://cdn.example.com/mugs/big%20mug.jpg");
  });

  it("answers description_text and the SEO fallback with no < or > and no tag, and sanitised description_html", async () => {
    const tee = await get("/products/hostile-tee?include=description,seo");
    const mug = await get("/products/cut-short-mug?include=description,seo");
    expect(tee.description_text).toBe(
      "Soft ‹img src=x onerror=__xss('desc-entity')› cotton ‹script›__xss('desc-numeric')‹/script› care guide",
    );
    expect(mug.description_text).toBe("Intro ‹script›__xss('fallback')‹/script› text.");
    expect((mug.seo as Json).description).toBe(mug.description_text);
    for (const text of [tee.description_text, mug.description_text, (mug.seo as Json).description] as string[]) {
      expect(text).not.toMatch(/[<>]/);
      expect(tagsIn(text)).toEqual([]);
    }
    // The entity-encoded payloads stay text (escaped again); the real ones lost their script.
    expect(elementsIn(tee.description_html as string)).toEqual([
      ["p", {}],
      ["img", { src: "x" }],
      ["a", {}],
    ]);
  });

  it("answers the plain-text fields exactly as the store wrote them (the client escapes them)", async () => {
    const tee = await get("/products/hostile-tee?include=images,seo,variants");
    const source = catalog.products[0]!;
    expect(tee).toMatchObject({
      title: source.title,
      vendor: source.vendor,
      product_type: source.product_type,
      tags: source.tags,
    });
    expect(tee.options).toEqual([
      {
        name: "size<img-src=x-onerror=__xss('option-name')>",
        label: source.options[0]!.name,
        values: source.options[0]!.values,
      },
    ]);
    expect((tee.variants as Json[]).map((v) => v.sku)).toEqual(source.variants.map((v) => v.sku));
    expect((tee.images as Json[]).map((i) => i.alt)).toEqual(source.images!.map((i) => i.alt));
    expect(tee.seo).toEqual(source.seo);
    const collections = await get("/collections");
    expect((collections.data as Json[]).map((c) => c.title)).toContain(
      "<iframe src=javascript:__xss('type')></iframe>Shirts",
    );
  });

  it("names in the import report the product whose description an unclosed <svg> cut short, with its line", () => {
    expect(report.notes).toEqual([
      'line 4, column 3: "cut-short-mug": the description loses its text after an unclosed <svg> (61 characters dropped by the sanitiser); close the element or remove it',
    ]);
    expect(formatReport(report)).toContain(
      'Note: line 4, column 3: "cut-short-mug": the description loses its text after an unclosed <svg>',
    );
    expect(descriptionLossWarnings(catalog)).toEqual([
      'products[1] (handle "cut-short-mug").description_html: the description loses its text after an unclosed <svg> (61 characters dropped by the sanitiser); close the element or remove it',
    ]);
  });
});

describe("URLs the importer refuses, with their line and column", () => {
  const HEAD = "Handle,Title,Variant Price,Image Src,Variant Image";
  it("refuses javascript:, data:, relative and quoted-host URLs and plain http: unless --allow-http", async () => {
    const csv = [
      HEAD,
      "a,A,1,javascript:alert(1),",
      "b,B,1,data:image/png;base64;AAAA,",
      "c,C,1,/img/c.jpg,",
      'd,D,1,,"https://x""onerror=""alert(1)/d.jpg"',
      "e,E,1,http://cdn.example.com/e.jpg,",
    ].join("\n");
    const issues = await issuesOf(csv);
    expect(issues.map((i) => [i.line, i.column, i.header])).toEqual([
      [2, 4, "Image Src"],
      [3, 4, "Image Src"],
      [4, 4, "Image Src"],
      [5, 5, "Variant Image"],
    ]);
    // The http: one is refused by the catalog schema once the rows are read: that product is
    // skipped and reported at its line with the reason (an export is never refused whole for a
    // product it cannot represent), and the rest import.
    const fixed = [HEAD, "e,E,1,http://cdn.example.com/e.jpg,", "f,F,1,https://cdn.example.com/f.jpg,"].join("\n");
    const { catalog: kept, report } = await importCatalog(fixed, { file: "http.csv", store: STORE });
    expect(kept.products.map((p) => p.handle)).toEqual(["f"]);
    expect(report.skipped).toEqual([
      expect.objectContaining({
        handle: "e",
        lines: [2],
        reason: expect.stringContaining(
          "images.0.url: an http: URL; only https: is allowed unless the catalog sets allow_http_urls",
        ),
      }),
    ]);
    const { catalog: allowed } = await importCatalog(fixed, { file: "http.csv", store: STORE, allowHttp: true });
    expect(allowed.allow_http_urls).toBe(true);
    expect(allowed.products[0]!.images?.[0]?.url).toBe("http://cdn.example.com/e.jpg");
  });
});

describe("description text", () => {
  const fragment = fc.constantFrom(
    "&lt;",
    "&gt;",
    "&LT;",
    "&lt",
    "&#60;",
    "&#x3c;",
    "&#X3C;",
    "&#0060;",
    "&#62;",
    "&amp;lt;",
    "<",
    ">",
    "< ",
    "<<",
    "<3",
    "img src=x onerror=alert(1)",
    "script",
    "/script",
    "svg/onload=alert(1)",
    "!--",
    "?x",
    "a",
    " ",
    "\n",
    '"',
    "'",
    "<p>",
    "</p>",
    "<b>",
    "<br>",
    "<script>",
    "</script>",
    "<svg>",
    "</svg>",
    "<noscript>",
    "<textarea>",
    "<![CDATA[",
    "]]>",
    "<!--",
    "-->",
    "&nbsp;",
  );
  it("holds no < or > and no tag, whatever the description, and the SEO fallback neither", () => {
    fc.assert(
      fc.property(
        fc.array(fragment, { maxLength: 24 }).map((parts) => parts.join("")),
        (html) => {
          const { text } = prepareContent(html);
          return !/[<>]/.test(text) && tagsIn(text).length === 0;
        },
      ),
      { numRuns: RUNS },
    );
  }, 30_000);

  it("reports a loss exactly when the sanitiser dropped the text after an element left open", () => {
    const elements = DROPPED;
    fc.assert(
      fc.property(
        fc.constantFrom(...elements),
        fc.boolean(),
        fc.constantFrom("x", "<p>x</p>", "<b>x", ""),
        (element, closed, inner) => {
          const html = `<p>intro</p><${element}>${inner}${closed ? `</${element}>` : ""}<p>TAILWORD and more</p>`;
          const kept = prepareContent(html).text.includes("TAILWORD");
          return kept === (descriptionLoss(html) === null);
        },
      ),
      { numRuns: 120 },
    );
    expect(descriptionLoss("<p>a</p><svg><text>logo</text></svg><p>b</p>")).toBeNull();
    expect(descriptionLoss("<p>a</p><noscript><p>everything after")).toEqual({ element: "noscript", characters: 16 });
  });
});
