import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  browseRegion,
  MAX_REPLICAS,
  pickReplica,
  type Region,
  replicaCount,
  replicaName,
} from "../../src/browse/engine.ts";
import { parseBrowseFacets, parseBrowsePage } from "../../src/browse/query.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { publishCatalog, rollbackCatalog } from "../../src/publish/publish.ts";

/**
 * Browse replicas (src/browse/engine.ts): the region a request's `cf` picks, the replica
 * its path and query pick, that the HTTP route reaches that very object, and that replicas of one
 * version, in any region, answer every query identically.
 */
const catalog = generateCatalog({ products: 2_000 });
let version = "";

beforeAll(async () => {
  version = (await publishCatalog(env.CATALOG, catalog, { browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS) }))
    .version;
}, 120_000);

function replica(region: Region | null, n: number) {
  const id = env.BROWSE_ENGINE.idFromName(replicaName(version, region, n));
  return region ? env.BROWSE_ENGINE.get(id, { locationHint: region }) : env.BROWSE_ENGINE.get(id);
}

describe("the region of a request", () => {
  it("follows the continent, split by longitude in North America and Europe, by country for the Middle East", () => {
    const cases: [Parameters<typeof browseRegion>[0], Region | null][] = [
      [{ continent: "NA", longitude: "-122.4" }, "wnam"],
      [{ continent: "NA", longitude: "-74.0" }, "enam"],
      [{ continent: "NA" }, "enam"],
      [{ continent: "SA", longitude: "-46.6" }, "sam"],
      [{ continent: "EU", longitude: "2.35" }, "weur"],
      [{ continent: "EU", longitude: "21.0" }, "eeur"],
      [{ continent: "EU" }, "weur"],
      [{ continent: "AS", country: "JP" }, "apac"],
      [{ continent: "AS", country: "AE" }, "me"],
      [{ continent: "OC", country: "AU" }, "oc"],
      [{ continent: "AF", country: "ZA" }, "afr"],
      [{ continent: "AN" }, null],
      [{ continent: "T1" }, null],
      [{}, null],
      [undefined, null],
    ];
    for (const [cf, region] of cases) expect(browseRegion(cf), JSON.stringify(cf)).toBe(region);
  });
});

describe("the replica of a request", () => {
  it("reads BROWSE_REPLICAS as 1..32, anything else as 1", () => {
    expect(replicaCount("4")).toBe(4);
    expect(replicaCount("1")).toBe(1);
    expect(replicaCount(String(MAX_REPLICAS + 8))).toBe(MAX_REPLICAS);
    for (const bad of [undefined, "", "0", "-2", "2.5", "many"]) expect(replicaCount(bad)).toBe(1);
    expect(env.BROWSE_REPLICAS).toBe("2");
  });

  it("is the same for the same request, and spreads requests over every replica", () => {
    const keys = Array.from({ length: 400 }, (_, i) => `/api/v1/products?q=tee&page=${i}`);
    for (const key of keys) expect(pickReplica(key, "4")).toBe(pickReplica(key, "4"));
    const counts = [0, 0, 0, 0];
    for (const key of keys) counts[pickReplica(key, "4")]! += 1;
    // Each of 4 replicas gets a fair share: 100 expected, 60 is far outside chance for a good hash.
    for (const n of counts) expect(n).toBeGreaterThan(60);
  });

  it("is the object the HTTP route asks: the request's region, its replica there, and no other", async () => {
    const path = "/api/v1/products?q=tee&sort=price_asc&limit=5";
    const response = await exports.default.fetch(`https://shop.example${path}`, {
      cf: { continent: "EU", longitude: "2.35", country: "FR" },
    } as RequestInit);
    expect(response.status).toBe(200);
    const n = pickReplica(path, env.BROWSE_REPLICAS);
    expect((await replica("weur", n).built())?.from).toBe("snapshot");
    expect(await replica("weur", 1 - n).built()).toBeNull();
    expect(await replica("apac", n).built()).toBeNull();
  });
});

describe("replicas of one version", () => {
  it("answer every query identically, in every region", async () => {
    const replicas = [replica(null, 0), replica("weur", 0), replica("weur", 1), replica("apac", 0), replica("wnam", 3)];
    const collection = { collection: catalog.collections[0]?.handle ?? "" };
    const pages = [
      "sort=price_asc&limit=50",
      "q=tee&limit=20",
      "tag=new&option.size=M&sort=newest",
      `available=true&sort=title_desc&limit=100&starting_after=${catalog.products.find((p, i) => i >= 700 && p.available)?.handle ?? ""}`,
    ];
    const facets = ["", "tag=new&option.size=M", "q=washed&vendor=Saltmarsh Supply"];
    for (const query of pages) {
      for (const scope of [{}, collection]) {
        const answers = await Promise.all(
          replicas.map((r) => r.page(version, scope, parseBrowsePage(new URLSearchParams(query)))),
        );
        for (const a of answers) expect(a).toEqual(answers[0]);
        // A cursor outside the collection is a 400 there, identically from every replica.
        if (scope !== collection) expect(answers[0], query).toMatchObject({ ok: true });
      }
    }
    for (const query of facets) {
      const answers = await Promise.all(
        replicas.map((r) => r.facets(version, {}, parseBrowseFacets(new URLSearchParams(query)))),
      );
      for (const a of answers) expect(a).toEqual(answers[0]);
    }
    // Each built its own index, from the snapshot.
    for (const r of replicas) expect((await r.built())?.from).toBe("snapshot");
  });
});

describe("a sharded version's engines", () => {
  it("are the shards of the request's replica, each loaded from its own snapshot, answering as the whole index does", async () => {
    const sharded = generateCatalog({ products: 2_000, seed: 9 });
    const published = await publishCatalog(env.CATALOG, sharded, {
      browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS),
      shardProducts: 700,
    });
    // The same catalog, whole, for the answers to compare with; then the sharded one is live again.
    const wholeVersion = (
      await publishCatalog(env.CATALOG, sharded, { browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS) })
    ).version;
    await rollbackCatalog(env.CATALOG);
    const path = "/api/v1/products?q=tee&sort=price_asc&limit=7";
    const response = await exports.default.fetch(`https://shop.example${path}`, {
      cf: { continent: "AS", longitude: "139.7", country: "JP" },
    } as RequestInit);
    expect(response.status).toBe(200);
    const body = await response.text();
    const engine = (name: string) => env.BROWSE_ENGINE.get(env.BROWSE_ENGINE.idFromName(name));
    const n = pickReplica(path, env.BROWSE_REPLICAS);
    for (let shard = 0; shard < 3; shard++) {
      const built = await engine(replicaName(published.version, "apac", n, shard)).built();
      expect(built?.from).toBe("snapshot");
      expect(await engine(replicaName(published.version, "apac", 1 - n, shard)).built()).toBeNull();
    }
    expect(await engine(replicaName(published.version, "apac", n)).built()).toBeNull();
    const page = await engine(replicaName(wholeVersion, null, 0)).page(
      wholeVersion,
      {},
      parseBrowsePage(new URLSearchParams("q=tee&sort=price_asc&limit=7")),
    );
    expect(page.ok && JSON.parse(page.body)).toEqual(JSON.parse(body));
  }, 120_000);
});
