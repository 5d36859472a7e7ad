import type { ChangesError, ChangesReply, ChangesRequest } from "../catalog/changes-api.ts";
import { CatalogStateError, ChangeBatchError } from "../catalog/changes.ts";
import { applyBatch } from "../publish/batch/apply.ts";
import { d1Target } from "../publish/browse-index.ts";
import { d1Query, LockBusyError, sqlLock } from "../publish/lock.ts";
import { cancelRelease, releaseTime } from "../publish/release.ts";
import { sha256Hex } from "../sha256.ts";
import { RequestKeys } from "./request-keys.ts";
import { releaseClock, type WriterEnv } from "./env.ts";
import { writerTarget } from "./target.ts";

/** How long a batch waits for a publish, rollback or other batch holding the lock before it answers 503 `catalog_busy`. */
export const LOCK_WAIT_MS = 20_000;
/**
 * The writer's lease on the catalog lock: an isolate killed mid-batch frees the lock after this,
 * not after the tools' 30 minutes (a batch renews it before its switch, src/publish/lock.ts).
 */
export const WRITER_LEASE_MS = 5 * 60 * 1000;
/** The `Retry-After` of a 503 `catalog_busy`, in seconds. */
export const BUSY_RETRY_AFTER_S = 30;
/** Who a batch of this endpoint is in the history (`catalog:rollback --list`). */
export const API_OPERATOR = "operator API";

/**
 * `POST /operator/catalog/changes` on the writer's side (contract section 11): the Idempotency-Key
 * claimed, then the batch applied by the same code as `catalog:apply` (src/publish/batch/), under
 * the same lock as every publish, batch and rollback: the D1 lease row (src/publish/lock.ts), which
 * `catalog:apply --remote` and `catalog:publish --remote` take too. Every outcome is an answer,
 * never a throw: the storefront's route only puts it in the envelope.
 */
export async function applyChanges(env: WriterEnv, request: ChangesRequest): Promise<ChangesReply> {
  let releaseAt: Date | undefined;
  if (request.releaseAt !== undefined) {
    const at = releaseTime(request.releaseAt);
    if (typeof at === "string")
      return refused(400, {
        type: "invalid_request_error",
        code: "parameter_invalid",
        message: `release_at ${at}. Nothing was changed.`,
        param: "release_at",
      });
    releaseAt = at;
  }
  if (request.key === undefined) return run(env, request.batch, undefined, releaseAt);
  const keys = new RequestKeys(env.BROWSE);
  // A scheduled batch's key holds its time too: the same batch for another second is another request.
  const fingerprint = JSON.stringify(
    releaseAt ? { batch: request.batch, release_at: request.releaseAt } : request.batch,
  );
  const claim = await keys.claim(request.key, await sha256Hex(fingerprint));
  switch (claim.kind) {
    case "replay":
      return { ...claim.reply, replayed: true };
    case "reused":
      return refused(422, {
        type: "idempotency_error",
        code: "idempotency_key_reused",
        message: "This Idempotency-Key was used with another batch: use a new key for a new batch.",
      });
    case "in_use":
      return refused(409, {
        type: "idempotency_error",
        code: "idempotency_key_in_use",
        message: "A batch with this Idempotency-Key is still being applied: retry when it has answered.",
      });
    case "run": {
      const reply = await run(env, request.batch, request.key, releaseAt);
      await claim.settle(reply);
      return reply;
    }
  }
}

function refused(status: 400 | 409 | 422 | 500 | 503, error: ChangesError) {
  return { ok: false as const, status, error, replayed: false };
}

async function run(
  env: WriterEnv,
  batch: unknown,
  key: string | undefined,
  releaseAt: Date | undefined,
): Promise<ChangesReply> {
  const waitMs = Number(env.CATALOG_LOCK_WAIT_MS) || LOCK_WAIT_MS;
  const lock = sqlLock(d1Query(env.BROWSE), { waitMs, pollMs: 500, leaseMs: WRITER_LEASE_MS });
  const target = writerTarget(env.CATALOG, env.CATALOG_WRITER);
  const browse = d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS);
  try {
    const result = await applyBatch(target, batch, {
      browse,
      lock,
      by: API_OPERATOR,
      source: key === undefined ? "POST /operator/catalog/changes" : `POST /operator/catalog/changes (${key})`,
      ...(releaseAt ? { releaseAt } : {}),
    });
    if (result.release_at !== undefined) {
      // Scheduled: the release clock is set for its second, or the release goes (nothing waits for a clock not set).
      try {
        await releaseClock(env).arm(Date.parse(result.release_at));
      } catch (error) {
        await cancelRelease(target, result.version, { lock, browse, by: API_OPERATOR });
        throw error;
      }
    }
    // What the batch cost, for the operator's logs (and the bench's batch rows): the answer says what changed.
    console.log(
      JSON.stringify({
        level: "info",
        message: "A catalog change batch was applied.",
        version: result.version,
        ...(result.release_at !== undefined ? { release_at: result.release_at } : {}),
        previous_version: result.previous,
        changed: result.changed,
        entries: result.entries,
        bytes: result.bytes,
        deleted: result.deleted,
      }),
    );
    return {
      ok: true,
      status: result.release_at === undefined ? 200 : 202,
      replayed: false,
      version: {
        object: "catalog_version",
        version: result.version,
        previous_version: result.previous,
        changed: result.changed,
        ...(result.release_at !== undefined ? { release_at: result.release_at } : {}),
      },
    };
  } catch (error) {
    if (error instanceof ChangeBatchError)
      return refused(400, {
        type: "invalid_request_error",
        code: error.code,
        message: `${error.issues.join("; ")}. Nothing was changed.`,
        param: error.param,
      });
    if (error instanceof CatalogStateError)
      return error.code === "catalog_unavailable"
        ? { ...refused(503, { type: "api_error", code: error.code, message: error.message }), retryAfter: 30 }
        : refused(409, { type: "invalid_request_error", code: error.code, message: error.message });
    if (error instanceof LockBusyError)
      return {
        ...refused(503, {
          type: "api_error",
          code: "catalog_busy",
          message: `Another catalog publish, batch or rollback held the catalog for ${Math.round(waitMs / 1000)} s: nothing was changed. Retry after ${BUSY_RETRY_AFTER_S} s.`,
        }),
        retryAfter: BUSY_RETRY_AFTER_S,
      };
    console.error(
      JSON.stringify({
        level: "error",
        message: "A catalog change batch failed; nothing was switched live.",
        error: error instanceof Error ? error.message : String(error),
      }),
    );
    return refused(500, {
      type: "api_error",
      code: "api_error",
      message: "The batch could not be applied; nothing was switched live. Retry it (with the same Idempotency-Key).",
    });
  }
}
