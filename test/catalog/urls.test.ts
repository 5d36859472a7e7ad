import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzRuns } from "../hardening/run-config.ts";
import {
  CatalogValidationError,
  normaliseUrl,
  parseCatalog,
  type SourceCatalog,
  URL_MAX,
} from "../../src/catalog/schema.ts";
import { seedCatalog } from "../helpers/catalog.ts";

/**
 * Catalog URLs: parsed by the WHATWG URL parser,
 * absolute https: (http: only where the catalog allows it), stored and served normalised, never
 * holding a character that lets a pasted URL leave an HTML attribute or open a tag.
 */

const RUNS = fuzzRuns(300);
/** What must never be in a served URL: quotes, angle brackets, back-tick, backslash, white space, controls. */
const UNSAFE = /["'<>`\\\s\u0000-\u001f\u007f]/;

function refused(raw: string, allowHttp = false): string {
  const result = normaliseUrl(raw, { allowHttp });
  if (!("error" in result)) throw new Error(`accepted ${raw} as ${result.url}`);
  return result.error;
}

function served(raw: string, allowHttp = false): string {
  const result = normaliseUrl(raw, { allowHttp });
  if ("error" in result) throw new Error(`refused ${raw}: ${result.error}`);
  return result.url;
}

/** Strings shaped like URLs with markup, quotes, odd hosts, schemes and Unicode mixed in. */
const hostileUrl = fc
  .tuple(
    fc.constantFrom(
      "https://",
      "http://",
      "HTTPS://",
      "https:",
      "//",
      "javascript:",
      "data:",
      "https:/\\",
      " https://",
      "ftp://",
      "",
      "https://u:p@",
    ),
    fc.constantFrom(
      "cdn.example.com",
      "CDN.Example.COM",
      'ex"ample.com',
      "ex'ample.com",
      "ex`ample.com",
      "exa<mple.com",
      "☃.example",
      "127.0.0.1",
      "[::1]",
      "a_b.example",
      "",
      "a b.example",
    ),
    fc.array(
      fc.constantFrom(
        "/",
        "a.jpg",
        '"',
        "'",
        "<",
        ">",
        "`",
        " ",
        "\t",
        "\n",
        "?",
        "#",
        "&",
        "=",
        "%",
        "%3C",
        "{",
        "}",
        "|",
        "^",
        "\\",
        "é",
        "👕",
        "..",
        "./",
        "onerror=alert(1)",
        "<svg/onload=alert(3)>",
        "\u0000",
        "\u007f",
      ),
      { maxLength: 12 },
    ),
  )
  .map(([scheme, host, rest]) => `${scheme}${host}${rest.join("")}`);

describe("normaliseUrl", () => {
  it("answers, for any input, a refusal or an https URL that is normalised, idempotent and holds nothing unsafe", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostileUrl,
          fc.string({ maxLength: 80 }),
          fc.webUrl({ withQueryParameters: true, withFragments: true }),
        ),
        (raw) => {
          const result = normaliseUrl(raw, { allowHttp: false });
          if ("error" in result) return true;
          const { url } = result;
          const again = normaliseUrl(url, { allowHttp: false });
          return (
            url.startsWith("https://") &&
            !UNSAFE.test(url) &&
            url.length <= URL_MAX &&
            new URL(url).href === url &&
            "url" in again &&
            again.url === url
          );
        },
      ),
      { numRuns: RUNS },
    );
  }, 30_000);

  it("percent-encodes the issue's payload instead of serving it (regression: stored as written, then served as images[].url)", () => {
    expect(served('https://cdn.example.com/a.jpg"><svg/onload=alert(3)>')).toBe(
      "https://cdn.example.com/a.jpg%22%3E%3Csvg/onload=alert(3)%3E",
    );
    // The WHATWG serialiser leaves ' in a path and ` in a fragment: encoded here too.
    expect(served("https://cdn.example.com/b.jpg'onerror='alert(1)'")).toBe(
      "https://cdn.example.com/b.jpg%27onerror=%27alert(1)%27",
    );
    expect(served("https://cdn.example.com/c.jpg?q='x'#`y'")).toBe("https://cdn.example.com/c.jpg?q=%27x%27#%60y%27");
    // A backslash stays as written in a query or fragment (found by the property above): encoded too.
    expect(served("https://cdn.example.com/d.jpg?q=a\\b#c\\d")).toBe("https://cdn.example.com/d.jpg?q=a%5Cb#c%5Cd");
  });

  it("normalises scheme, host, dot segments, spaces and non-ASCII as browsers do", () => {
    expect(served("  HTTPS://CDN.Example.COM:443/./a/../b c.jpg  ")).toBe("https://cdn.example.com/b%20c.jpg");
    expect(served("https://☃.example/👕.jpg")).toBe("https://xn--n3h.example/%F0%9F%91%95.jpg");
    expect(served("https:/\\cdn.example.com\\a.jpg")).toBe("https://cdn.example.com/a.jpg");
  });

  it("refuses what is not an absolute http(s) URL, or names a user, or a host no DNS name could be", () => {
    expect(refused("javascript:alert(1)")).toContain('"javascript:" URLs are not allowed');
    expect(refused("data:image/svg+xml,<svg onload=alert(1)>")).toContain('"data:" URLs are not allowed');
    expect(refused("/relative/a.jpg")).toContain("is not an absolute URL");
    expect(refused("//cdn.example.com/a.jpg")).toContain("is not an absolute URL");
    expect(refused("https://user:secret@cdn.example.com/a.jpg")).toContain("user name or password");
    // WHATWG lets " ' and ` into a domain; a quote there would end an HTML attribute.
    expect(refused('https://x"onerror="alert(1)/a.jpg')).toContain("is not a domain name or IP address");
    expect(refused("https://ex'ample.com/")).toContain("is not a domain name or IP address");
    expect(refused(`https://cdn.example.com/${"a".repeat(URL_MAX)}`)).toContain(`longer than ${URL_MAX}`);
  });

  it("refuses http: unless asked to allow it", () => {
    expect(refused("http://cdn.example.com/a.jpg")).toContain("only https: is allowed");
    expect(served("http://cdn.example.com/a.jpg", true)).toBe("http://cdn.example.com/a.jpg");
  });
});

describe("URLs in a catalog published by hand (catalog:publish validates with the same schema)", () => {
  function withUrls(image: string, variantImage: string): SourceCatalog {
    const catalog = seedCatalog() as unknown as SourceCatalog;
    const product = catalog.products[0]!;
    product.images = [{ url: image }];
    product.variants[0]!.image = variantImage;
    return catalog;
  }

  function issues(input: unknown): string[] {
    try {
      parseCatalog(input);
      return [];
    } catch (error) {
      if (error instanceof CatalogValidationError) return error.issues;
      throw error;
    }
  }

  it("stores the normalised form of an image and a variant image", () => {
    const parsed = parseCatalog(
      withUrls('https://cdn.example.com/a.jpg"><svg/onload=alert(3)>', "https://CDN.example.com/v 1.jpg"),
    );
    expect(parsed.products[0]!.images?.[0]?.url).toBe("https://cdn.example.com/a.jpg%22%3E%3Csvg/onload=alert(3)%3E");
    expect(parsed.products[0]!.variants[0]!.image).toBe("https://cdn.example.com/v%201.jpg");
  });

  it("keeps the seed's URLs as they are: they are already normalised", () => {
    const seed = seedCatalog() as unknown as SourceCatalog;
    const parsed = parseCatalog(structuredClone(seed));
    expect(parsed.products.map((p) => [p.images, p.variants.map((v) => v.image)])).toEqual(
      seed.products.map((p) => [p.images, p.variants.map((v) => v.image)]),
    );
  });

  it("refuses a bad URL naming the product and the field", () => {
    expect(issues(withUrls("javascript:alert(1)", "https://cdn.example.com/v.jpg"))).toEqual([
      'products[0] (handle "essential-crew-tee-black").images[0].url: "javascript:" URLs are not allowed: only https:',
    ]);
    expect(issues(withUrls("https://cdn.example.com/a.jpg", "https://x'y.example/v.jpg"))).toEqual([
      'products[0] (handle "essential-crew-tee-black").variants[0].image: the host "x\'y.example" is not a domain name or IP address',
    ]);
  });

  it("refuses http: URLs unless the catalog sets allow_http_urls", () => {
    const catalog = withUrls("http://cdn.example.com/a.jpg", "http://cdn.example.com/v.jpg");
    expect(issues(catalog)).toEqual([
      'products[0] (handle "essential-crew-tee-black").images[0].url: an http: URL; only https: is allowed unless the catalog sets allow_http_urls',
      'products[0] (handle "essential-crew-tee-black").variants[0].image: an http: URL; only https: is allowed unless the catalog sets allow_http_urls',
    ]);
    expect(issues({ ...catalog, allow_http_urls: true })).toEqual([]);
  });
});
