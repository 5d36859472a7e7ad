import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RULES_POINTER_KEY, type RulesPointer, rulesDocumentKey } from "../../src/rules/layout.ts";
import { KEEP_RULES_VERSIONS, type RulesPublisher } from "../../src/rules/rules-object.ts";
import { RulesStore } from "../../src/rules/store.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { RulesHistorySchema } from "../../src/rules/history-api.ts";
import { operator } from "../helpers/cart.ts";
import { publishSeedCatalog, seedCatalog } from "../helpers/catalog.ts";
import { countingKv } from "../helpers/counting-kv.ts";
import { CONTRACT_EXAMPLE } from "./example.ts";
import seedRules from "../../seed/rules.json";
import { parseRules } from "../../src/rules/parse.ts";

/**
 * The rules document's store and publishing (contract 10.1): GET/PUT /operator/rules with
 * If-Match, the history, rollback, the KV pointer carts read, and the reader's memo. The tests of
 * this file run in order on one storage: each starts from what the one before it left.
 */

const SHIP = {
  shipping: {
    zones: [{ name: "Domestic", countries: ["US"], rates: [{ id: "std", title: "Standard", price: "5.00" }] }],
  },
};

function put(document: unknown, ifMatch?: string): Promise<Response> {
  return operator("/rules", {
    method: "PUT",
    body: JSON.stringify(document),
    headers: ifMatch === undefined ? {} : { "If-Match": ifMatch },
  });
}

function rollback(body: unknown = {}, ifMatch?: string): Promise<Response> {
  return operator("/rules/rollback", {
    method: "POST",
    body: JSON.stringify(body),
    headers: ifMatch === undefined ? {} : { "If-Match": ifMatch },
  });
}

async function live(): Promise<{ status: number; etag: string | null; body: unknown }> {
  const res = await operator("/rules");
  return { status: res.status, etag: res.headers.get("etag"), body: await res.json() };
}

async function errorOf(res: Response): Promise<{ code: string; param?: string; message: string }> {
  return ((await res.json()) as { error: { code: string; param?: string; message: string } }).error;
}

const kvPointer = () => env.CATALOG.get<RulesPointer>(RULES_POINTER_KEY, "json");
const versionOf = (etag: string | null) => etag?.replace(/"/g, "") ?? "";

describe("the seed's example rules (seed/rules.json, which npm run dev does not publish)", () => {
  it("are a valid document for the seed catalog's currency", () => {
    const parsed = parseRules(seedRules, seedCatalog().currency as "USD");
    expect(parsed.ok ? parsed.rules.zones.map((z) => z.name) : parsed.issues).toEqual(["United States", "Canada"]);
  });
});

describe("the rules document before any is published", () => {
  it("GET answers 404 resource_missing, and carts read no rules", async () => {
    const res = await operator("/rules");
    expect(res.status).toBe(404);
    expect(await errorOf(res)).toMatchObject({ code: "resource_missing" });
    expect(await new RulesStore(env.CATALOG).live("USD")).toBeNull();
  });

  it("PUT answers 503 catalog_unavailable before any catalog: amounts are checked in its currency", async () => {
    const res = await put(SHIP);
    expect(res.status).toBe(503);
    expect(await errorOf(res)).toMatchObject({ code: "catalog_unavailable" });
    expect(await kvPointer()).toBeNull();
  });
});

describe("publishing", () => {
  let first = "";

  it("the first PUT needs no If-Match and answers the document with its version as a strong ETag", async () => {
    await publishSeedCatalog();
    const res = await put(CONTRACT_EXAMPLE);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    first = versionOf(res.headers.get("etag"));
    expect(res.headers.get("etag")).toMatch(/^"\d{8}T\d{6}Z-[0-9a-f]{6}"$/);
    expect(await res.json()).toEqual(CONTRACT_EXAMPLE);
    expect(await live()).toEqual({ status: 200, etag: `"${first}"`, body: CONTRACT_EXAMPLE });
  });

  it("switches the KV pointer carts read, and carts get the new version on the very next read", async () => {
    expect((await kvPointer())?.current).toMatchObject({
      version: first,
      currency: "USD",
      discounts: 4,
      codes: 2,
      zones: 1,
      tax: "exclusive",
    });
    expect(await env.CATALOG.get(rulesDocumentKey(first), "json")).toEqual(CONTRACT_EXAMPLE);
    const store = new RulesStore(env.CATALOG);
    const rules = await store.live("USD");
    expect(rules?.version).toBe(first);
    expect(rules?.rules.zones[0]?.rates.map((r) => r.price)).toEqual([500, 1500]);
  });

  it("refuses a PUT without If-Match while rules are live (428), and a stale If-Match (412): nothing changes", async () => {
    const blind = await put(SHIP);
    expect(blind.status).toBe(428);
    expect(await errorOf(blind)).toMatchObject({ code: "precondition_required", param: "If-Match" });
    const stale = await put(SHIP, '"20200101T000000Z-000000"');
    expect(stale.status).toBe(412);
    expect(await errorOf(stale)).toMatchObject({ code: "rules_version_mismatch", param: "If-Match" });
    expect((await live()).etag).toBe(`"${first}"`);
    expect((await kvPointer())?.current.version).toBe(first);
  });

  it("refuses an If-Match that is not a quoted version (400), naming the header", async () => {
    for (const header of [first, `W/"${first}"`, '"a b"']) {
      const res = await put(SHIP, header);
      expect(res.status, header).toBe(400);
      expect(await errorOf(res)).toMatchObject({ code: "parameter_invalid", param: "If-Match" });
    }
  });

  it("publishes with the live ETag, or with If-Match: *", async () => {
    const res = await put(SHIP, `"${first}"`);
    expect(res.status).toBe(200);
    const second = versionOf(res.headers.get("etag"));
    expect(second).not.toBe(first);
    expect(await res.json()).toEqual(SHIP);
    expect(await kvPointer()).toMatchObject({ current: { version: second }, previous: { version: first } });
    const any = await put({}, "*");
    expect(any.status).toBe(200);
    expect(await any.json()).toEqual({});
  });

  it("two writers with the same If-Match: exactly one publishes, the other is 412", async () => {
    const etag = (await live()).etag ?? "";
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => put({ ...SHIP, tax: { mode: i % 2 === 0 ? "none" : "stripe" } }, etag)),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412, 412]);
    const winner = answers.find((r) => r.status === 200)!;
    expect((await live()).etag).toBe(winner.headers.get("etag"));
  });

  it("the same document again publishes nothing: same version, no history line", async () => {
    const { etag, body } = await live();
    const before = RulesHistorySchema.parse(await (await operator("/rules/versions")).json()).count;
    const again = await put(body, etag ?? "");
    expect(again.status).toBe(200);
    expect(again.headers.get("etag")).toBe(etag);
    expect(RulesHistorySchema.parse(await (await operator("/rules/versions")).json()).count).toBe(before);
  });

  it("an invalid document is 400 with the dotted path of its first mistake in param; nothing is written", async () => {
    const etag = (await live()).etag ?? "";
    const cases: [unknown, string, string][] = [
      [{ discounts: [{ ...CONTRACT_EXAMPLE.discounts[1], value: "5.001" }] }, "parameter_invalid", "discounts.0.value"],
      [
        { shipping: { zones: [{ ...SHIP.shipping.zones[0], colour: "red" }] } },
        "parameter_unknown",
        "shipping.zones.0.colour",
      ],
      [{ tax: { rates: [] } }, "parameter_missing", "tax.mode"],
      [{ discounts: [{ id: "x", title: "X", kind: "free_shipping" }] }, "parameter_invalid", "discounts.0.kind"],
    ];
    for (const [document, code, param] of cases) {
      const res = await put(document, etag);
      expect(res.status, param).toBe(400);
      const error = await errorOf(res);
      expect(error, param).toMatchObject({ code, param });
      expect(error.message).toContain(param.replace(/\.(\d+)/g, "[$1]"));
    }
    expect((await live()).etag).toBe(etag);
  });

  it("refuses a body that is not JSON, or over 512 KiB", async () => {
    const etag = (await live()).etag ?? "";
    const broken = await operator("/rules", { method: "PUT", body: "{", headers: { "If-Match": etag } });
    expect(await errorOf(broken)).toMatchObject({ code: "invalid_json" });
    const huge = {
      discounts: [{ id: "big", title: "x".repeat(200), kind: "percentage", value: "5", code: "B".repeat(60) }],
    };
    const text = JSON.stringify({ ...huge, pad: "x".repeat(600 * 1024) });
    const large = await operator("/rules", { method: "PUT", body: text, headers: { "If-Match": etag } });
    expect(large.status).toBe(413);
  });
});

describe("the history and rollback", () => {
  it("lists every publish oldest first, the last one live", async () => {
    const history = RulesHistorySchema.parse(await (await operator("/rules/versions")).json());
    expect(history.count).toBe(4);
    expect(history.data.map((e) => e.action)).toEqual(["publish", "publish", "publish", "publish"]);
    expect(history.data.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(history.data.map((e) => e.live)).toEqual([false, false, false, true]);
    expect(history.data[0]).toMatchObject({
      from: null,
      discounts: 4,
      codes: 2,
      zones: 1,
      tax: "exclusive",
      kept: true,
    });
    expect(history.data[1]?.from).toBe(history.data[0]?.version);
  });

  it("rolls back to the previous version with one pointer switch, and a second rollback returns", async () => {
    const history = RulesHistorySchema.parse(await (await operator("/rules/versions")).json());
    const [, , third, fourth] = history.data.map((e) => e.version);
    const back = await rollback();
    expect(back.status).toBe(200);
    expect(back.headers.get("etag")).toBe(`"${third}"`);
    expect(await back.json()).toEqual({});
    expect(await kvPointer()).toMatchObject({ current: { version: third }, previous: { version: fourth } });
    expect((await new RulesStore(env.CATALOG).live("USD"))?.version).toBe(third);
    const forth = await rollback({}, `"${third}"`);
    expect(forth.headers.get("etag")).toBe(`"${fourth}"`);
    const after = RulesHistorySchema.parse(await (await operator("/rules/versions")).json());
    expect(after.data.slice(-2).map((e) => [e.action, e.version, e.from])).toEqual([
      ["rollback", third, fourth],
      ["rollback", fourth, third],
    ]);
  });

  it("rolls back to any kept version by name; a stale If-Match, an unknown or the live version are refused", async () => {
    const history = RulesHistorySchema.parse(await (await operator("/rules/versions")).json());
    const firstVersion = history.data[0]!.version;
    const liveVersion = history.data.at(-1)!.version;
    expect((await rollback({ version: firstVersion }, '"20200101T000000Z-000000"')).status).toBe(412);
    const unknown = await rollback({ version: "20200101T000000Z-000000" });
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toMatchObject({ code: "resource_missing", param: "version" });
    const same = await rollback({ version: liveVersion });
    expect(same.status).toBe(400);
    expect(await errorOf(same)).toMatchObject({ code: "parameter_invalid", param: "version" });
    const named = await rollback({ version: firstVersion });
    expect(named.status).toBe(200);
    expect(await named.json()).toEqual(CONTRACT_EXAMPLE);
    expect((await new RulesStore(env.CATALOG).live("USD"))?.rules.discounts.map((d) => d.id)).toEqual([
      "summer10",
      "five-off",
      "ship-free",
      "b2g1",
    ]);
  });

  it(`keeps the documents of the live, the previous and the last ${KEEP_RULES_VERSIONS} published versions; older ones are listed as not kept`, async () => {
    const firstVersion = RulesHistorySchema.parse(await (await operator("/rules/versions")).json()).data[0]!.version;
    for (let i = 0; i < KEEP_RULES_VERSIONS + 1; i++) {
      const res = await put(
        { discounts: [{ id: `d${i}`, title: "D", code: `D${i}`, kind: "percentage", value: "5" }] },
        "*",
      );
      expect(res.status).toBe(200);
    }
    const history = RulesHistorySchema.parse(await (await operator("/rules/versions")).json());
    expect(history.data.find((e) => e.version === firstVersion)).toMatchObject({ kept: false, discounts: null });
    expect(history.data.filter((e) => e.kept && e.action === "publish").length).toBeGreaterThanOrEqual(
      KEEP_RULES_VERSIONS,
    );
    expect(await env.CATALOG.get(rulesDocumentKey(firstVersion))).toBeNull();
    const gone = await rollback({ version: firstVersion });
    expect(gone.status).toBe(404);
    expect((await errorOf(gone)).message).toMatch(/deleted by a cleanup/);
  });
});

describe("the reader carts use", () => {
  it("reads a version's document once per isolate, then only the pointer", async () => {
    const counted = countingKv(env.CATALOG);
    const store = new RulesStore(counted.kv);
    const version = (await store.live("USD"))?.version ?? "";
    await store.live("USD");
    await store.live("USD");
    expect(counted.reads.filter((k) => k === rulesDocumentKey(version)).length).toBeLessThanOrEqual(1);
    expect(counted.reads.filter((k) => k === RULES_POINTER_KEY).length).toBe(3);
  });

  it("keeps the pointer for CATALOG_POINTER_TTL_MS when one is set (the catalog's freshness rule)", async () => {
    const counted = countingKv(env.CATALOG);
    const store = new RulesStore(counted.kv, { pointerTtlMs: 60_000 });
    await store.live("USD");
    await store.live("USD");
    expect(counted.reads.filter((k) => k === RULES_POINTER_KEY).length).toBe(1);
  });

  it("`{}` is the same as no rules: nothing to discount, ship or tax", async () => {
    const res = await put({}, "*");
    expect(res.status).toBe(200);
    const rules = (await new RulesStore(env.CATALOG).live("USD"))?.rules;
    expect(rules).toMatchObject({ discounts: [], zones: [], tax: null });
  });
});

describe("a pointer write that fails", () => {
  it("is undone: the history and the live version stay as they were, and the next write mirrors KV again", async () => {
    const before = await live();
    const stub = env.RULES.get(env.RULES.idFromName("live"));
    await runInDurableObject(stub, async (instance: RulesPublisher) => {
      // The object's env, reached from outside: its KV answers every write but the pointer's with a failure.
      const own = instance as unknown as { env: Env };
      const real = own.env.CATALOG;
      const failing = new Proxy(real, {
        get(target, prop) {
          if (prop === "put")
            return (key: string, value: string) =>
              key === RULES_POINTER_KEY ? Promise.reject(new Error("KV down")) : target.put(key, value);
          const value: unknown = Reflect.get(target, prop);
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      Object.defineProperty(instance, "env", { value: { ...own.env, CATALOG: failing }, configurable: true });
      expect(
        await instance.publish({ document: JSON.stringify(SHIP), currency: "USD", ifMatch: { kind: "any" } }),
      ).toMatchObject({ ok: false, code: "rules_unavailable", message: expect.stringMatching(/KV down/) });
      Object.defineProperty(instance, "env", { value: { ...own.env, CATALOG: real }, configurable: true });
    });
    expect(await live()).toEqual(before);
    const history = RulesHistorySchema.parse(await (await operator("/rules/versions")).json());
    expect(history.data.at(-1)?.version).toBe(versionOf(before.etag));
    expect(history.data.at(-1)?.live).toBe(true);
    // The next write starts by writing KV's pointer from the publisher's own state.
    const next = await put(SHIP, before.etag ?? "");
    expect(next.status).toBe(200);
    expect((await kvPointer())?.current.version).toBe(versionOf(next.headers.get("etag")));
  });
});

describe("the catalog's currency", () => {
  it("checks a document's amounts in it, and refuses a rollback to rules a JPY catalog cannot charge", async () => {
    const catalog = seedCatalog() as {
      currency: string;
      products: { variants: { price: string; compare_at_price?: string }[] }[];
    };
    catalog.currency = "JPY";
    for (const p of catalog.products)
      for (const v of p.variants) {
        v.price = String(Math.round(Number(v.price)));
        delete v.compare_at_price;
      }
    await publishCatalog(env.CATALOG, catalog, { browse: null });
    const etag = (await live()).etag ?? "";
    const cents = await put(
      {
        shipping: { zones: [{ ...SHIP.shipping.zones[0], rates: [{ id: "std", title: "Standard", price: "5.50" }] }] },
      },
      etag,
    );
    expect(cents.status).toBe(400);
    expect(await errorOf(cents)).toMatchObject({ param: "shipping.zones.0.rates.0.price" });
    const yen = await put(
      { shipping: { zones: [{ ...SHIP.shipping.zones[0], rates: [{ id: "std", title: "Standard", price: "500" }] }] } },
      etag,
    );
    expect(yen.status).toBe(200);
    const back = await rollback();
    expect(back.status).toBe(400);
    expect(await errorOf(back)).toMatchObject({ param: "shipping.zones.0.rates.0.price" });
    expect((await new RulesStore(env.CATALOG).live("JPY"))?.rules.zones[0]?.rates[0]?.price).toBe(500);
  });
});
