import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RETRIED_CALLS, retrying } from "../../src/cli/local-env.ts";
import { d1Target } from "../../src/publish/browse-index.ts";

/**
 * The local tools' bindings retry a call whose socket to Miniflare's proxy was lost ("fetch
 * failed"), and nothing else: a real KV binding whose first calls fail as the proxy's do.
 */
function losingSockets(
  kv: KVNamespace,
  failures: number,
  error: () => Error,
): { kv: KVNamespace; calls: () => number } {
  let calls = 0;
  const flaky = new Proxy(kv, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (prop !== "put" || typeof value !== "function")
        return typeof value === "function" ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        if (++calls <= failures) throw error();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { kv: flaky, calls: () => calls };
}

const lost = () => new TypeError("fetch failed", { cause: new Error("other side closed") });

describe("a local binding's calls through Miniflare's proxy", () => {
  it("are retried when the socket was lost, up to four times, saying so each time", async () => {
    const { kv, calls } = losingSockets(env.CATALOG, 4, lost);
    const said: string[] = [];
    await retrying(kv, RETRIED_CALLS.kv, (line) => said.push(line), 1).put("retried", "yes");
    expect(await env.CATALOG.get("retried")).toBe("yes");
    expect(calls()).toBe(5);
    expect(said).toHaveLength(4);
    expect(said[0]).toBe("put lost Miniflare's socket (Error: other side closed); retrying");
  });

  it("fail after the fifth lost socket, with the error as it came", async () => {
    const { kv, calls } = losingSockets(env.CATALOG, 5, lost);
    await expect(retrying(kv, RETRIED_CALLS.kv, () => {}, 1).put("never", "no")).rejects.toThrow("fetch failed");
    expect(calls()).toBe(5);
    expect(await env.CATALOG.get("never")).toBeNull();
  });

  it("are not retried for any other failure, nor when the call is not one of those retried", async () => {
    const refused = losingSockets(env.CATALOG, 1, () => new Error("KV put() limit exceeded"));
    await expect(retrying(refused.kv, RETRIED_CALLS.kv, () => {}, 1).put("k", "v")).rejects.toThrow("limit");
    expect(refused.calls()).toBe(1);
    const unlisted = losingSockets(env.CATALOG, 1, lost);
    await expect(retrying(unlisted.kv, ["get"], () => {}, 1).put("k", "v")).rejects.toThrow("fetch failed");
    expect(unlisted.calls()).toBe(1);
  });

  it("include the publish cleanup's listing of the browse tables (a D1 batch, not a statement's own call)", async () => {
    let lostOnce = false;
    const flaky = new Proxy(env.BROWSE, {
      get(target, prop) {
        if (prop === "batch")
          return (statements: D1PreparedStatement[]) => {
            if (!lostOnce) {
              lostOnce = true;
              return Promise.reject(lost());
            }
            return target.batch(statements);
          };
        const value: unknown = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const said: string[] = [];
    await env.BROWSE.exec("CREATE TABLE listed (k TEXT)");
    const tables = await d1Target(retrying(flaky, RETRIED_CALLS.d1, (line) => said.push(line), 1)).tables();
    expect(tables).toContain("listed");
    // Listed by a statement's own all() (as before), the lost socket was never seen, nor retried.
    expect(said).toEqual(["batch lost Miniflare's socket (Error: other side closed); retrying"]);
  });
});
