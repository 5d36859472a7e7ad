import type { CatalogVersionReply, ChangesError } from "../catalog/changes-api.ts";
import { sleep } from "../publish/lock.ts";

/** An answer of `POST /operator/catalog/changes` other than 200 (after its retries): its status and error. */
export class ChangesRefused extends Error {
  readonly status: number;
  readonly error: ChangesError | undefined;
  constructor(status: number, error: ChangesError | undefined) {
    super(error?.message ?? `POST /api/v1/operator/catalog/changes answered ${status}.`);
    this.name = "ChangesRefused";
    this.status = status;
    this.error = error;
  }
}

/**
 * Sends a change batch to a worker's `POST /api/v1/operator/catalog/changes` (its catalog writer
 * applies it), the one Idempotency-Key kept across tries: 503 `catalog_busy` (another publish,
 * batch or rollback holds the lock) is tried again after its Retry-After while `waitMs` lasts,
 * as the local tools wait for the lock. Any other refusal throws ChangesRefused.
 */
export async function sendChanges(
  base: string,
  secret: string,
  batch: unknown,
  wait: { waitMs: number; onWait?: (message: string) => void; releaseAt?: Date },
): Promise<CatalogVersionReply> {
  const key = `catalog-apply-${crypto.randomUUID()}`;
  const started = Date.now();
  for (;;) {
    const url = new URL("/api/v1/operator/catalog/changes", base);
    if (wait.releaseAt) url.searchParams.set("release_at", wait.releaseAt.toISOString());
    const res = await fetch(url, {
      method: "POST",
      headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json", "Idempotency-Key": key },
      body: JSON.stringify(batch),
    });
    const body = (await res.json().catch(() => null)) as { error?: ChangesError } | CatalogVersionReply | null;
    if (res.status === 200 || res.status === 202) return body as CatalogVersionReply;
    const error = (body as { error?: ChangesError } | null)?.error;
    const retryMs = Number(res.headers.get("retry-after") ?? 30) * 1000;
    if (res.status !== 503 || error?.code !== "catalog_busy" || Date.now() - started + retryMs > wait.waitMs)
      throw new ChangesRefused(res.status, error);
    wait.onWait?.(error.message);
    await sleep(retryMs);
  }
}
