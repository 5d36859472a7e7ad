import { describe, expect, it } from "vitest";
import { StockDetailSchema } from "../../src/stock/results.ts";
import { localServerForSuite } from "../hardening/local-server.ts";

/**
 * Nothing is lost (issue 35): a kill -9 of the local server in the middle of a storm of stock
 * changes leaves every acknowledged change applied exactly once; the changes cut short complete
 * when retried with their Idempotency-Keys, and the movement log agrees with the level.
 */

const PORTS = [8840, 8841, 8842, 8843, 8844, 8845];
const OPERATOR = { Authorization: "Bearer dev-operator-secret", "Content-Type": "application/json" };
const M_NAVY = "44102938475615";
const STORM = 40;

describe("live stock across a crash", () => {
  const local = localServerForSuite(PORTS);
  const url = local.url;
  const adjust = (key: string) =>
    fetch(url("/api/v1/operator/stock"), {
      method: "POST",
      headers: { ...OPERATOR, "Idempotency-Key": key },
      body: JSON.stringify({ changes: [{ variant_id: M_NAVY, adjust: 1 }] }),
    });
  const detail = async () =>
    StockDetailSchema.parse(await (await fetch(url(`/api/v1/operator/stock/${M_NAVY}`), { headers: OPERATOR })).json());

  it("applies every acknowledged change exactly once, and the rest once on retry", async () => {
    const start = (await detail()).level.quantity;
    const keys = Array.from({ length: STORM }, (_, i) => `storm-${i}-${crypto.randomUUID()}`);
    const acknowledged = new Set<string>();
    // Ten at a time; the server is killed once about half were answered.
    let next = 0;
    const killed = (async () => {
      while (acknowledged.size < STORM / 2) await new Promise((r) => setTimeout(r, 5));
      await local.server.kill();
    })();
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < STORM) {
          const key = keys[next++]!;
          try {
            const res = await adjust(key);
            if (res.status === 200) acknowledged.add(key);
            await res.body?.cancel();
          } catch {
            // The server died under this request: its change may or may not have been applied.
          }
        }
      }),
    );
    await killed;
    expect(acknowledged.size).toBeGreaterThanOrEqual(STORM / 2);
    await local.restart();
    const after = (await detail()).level.quantity;
    // Every acknowledged change survived the crash; no change was applied twice.
    expect(after - start).toBeGreaterThanOrEqual(acknowledged.size);
    expect(after - start).toBeLessThanOrEqual(STORM);
    // Retried with their keys, the rest complete and the acknowledged ones replay.
    for (const key of keys) {
      const res = await adjust(key);
      expect(res.status).toBe(200);
      if (acknowledged.has(key)) expect(res.headers.get("idempotent-replayed")).toBe("true");
      await res.body?.cancel();
    }
    const end = await detail();
    expect(end.level.quantity - start).toBe(STORM);
    // The movement log agrees with the level: one operator movement per key, each +1.
    const storm = end.movements.filter((m) => m.source === "operator" && keys.some((k) => m.ref === `op:${k}`));
    expect(storm).toHaveLength(STORM);
    expect(storm.every((m) => m.delta_quantity === 1)).toBe(true);
    expect(end.movements.at(-1)!.quantity).toBe(end.level.quantity);
  }, 300_000);
});
