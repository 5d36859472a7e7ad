import type { Context } from "hono";
import { Hono } from "../http/hono.ts";
import * as z from "zod/mini";
import { CatalogStore, pointerTtlMs } from "../catalog/store.ts";
import type { AppEnv } from "../http/app-env.ts";
import { JSON_CONTENT_TYPE } from "../http/cache.ts";
import { ApiError, catalogUnavailable, invalidRequest, resourceMissing } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { requireOperator } from "../http/operator-auth.ts";
import { parseJsonBody, validJson } from "../http/validate.ts";
import { DEFAULT_CURRENCY, type Currency } from "../money.ts";
import { describe } from "../openapi/describe.ts";
import { RollbackRulesRequestSchema, RULES_MAX_BYTES } from "../rules/api.ts";
import { rulesPublisher } from "../rules/client.ts";
import type { IfMatch, RulesVersion, RulesWrite } from "../rules/rules-object.ts";
import { issueParam, issueWhere, type RulesIssue } from "../rules/schema.ts";
import { parseRules } from "../rules/parse.ts";

/** `"v1", "v2"` or `*`; a version name is what `ETag` gives, in quotes (weak tags never match). */
function ifMatch(header: string | undefined): IfMatch {
  if (header === undefined) return { kind: "none" };
  const text = header.trim();
  if (text === "*") return { kind: "any" };
  const versions: string[] = [];
  for (const part of text.split(",")) {
    const match = /^\s*"([A-Za-z0-9_-]{1,64})"\s*$/.exec(part);
    if (!match)
      throw invalidRequest(
        "parameter_invalid",
        'If-Match takes the ETag GET /operator/rules answered, in its double quotes ("20261201T090000Z-3f9a1c"), or *.',
        "If-Match",
      );
    versions.push(match[1]!);
  }
  return { kind: "versions", versions };
}

/** The catalog's currency, which every amount of the rules is checked against; 503 before any publish. */
async function liveCurrency(env: Env): Promise<Currency> {
  const meta = await new CatalogStore(env.CATALOG, {
    pointerTtlMs: pointerTtlMs(env.CATALOG_POINTER_TTL_MS),
  }).currentMeta();
  if (!meta) throw catalogUnavailable();
  return (meta.currency ?? DEFAULT_CURRENCY) as Currency;
}

/** 400 naming the first mistake's dotted path in `param` (`discounts.2.value`), and how many more there are. */
function invalidRules(issues: readonly RulesIssue[], prefix = ""): ApiError {
  const first = issues[0];
  const path = first?.path ?? [];
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  const code =
    first?.message === "unknown field"
      ? "parameter_unknown"
      : first?.message === "required"
        ? "parameter_missing"
        : "parameter_invalid";
  return invalidRequest(
    code,
    `${prefix}${issueWhere(path)}: ${first?.message ?? "invalid"}${more}.`,
    path.length > 0 ? issueParam(path) : undefined,
  );
}

/** The document as it was published, with its version as a strong ETag. */
function answer(c: Context<AppEnv>, live: RulesVersion): Response {
  return c.body(live.document, 200, { "Content-Type": JSON_CONTENT_TYPE, ETag: `"${live.meta.version}"` });
}

/** A refused write as the contract's error. */
function refused(outcome: Exclude<RulesWrite, { ok: true }>): never {
  switch (outcome.code) {
    case "rules_version_mismatch":
      throw new ApiError(412, {
        type: "invalid_request_error",
        code: "rules_version_mismatch",
        message:
          outcome.live === null
            ? "No rules are live, so If-Match names nothing: send the document without If-Match."
            : `The live rules are version ${outcome.live}, not the one If-Match names: they changed since you read them. GET /operator/rules, apply your change to what it answers, and send it with its ETag.`,
        param: "If-Match",
      });
    case "precondition_required":
      throw new ApiError(428, {
        type: "invalid_request_error",
        code: "precondition_required",
        message: `Rules are live (version ${outcome.live}): send If-Match with the ETag GET /operator/rules answered, so a change made meanwhile is never overwritten (If-Match: * replaces whatever is live).`,
        param: "If-Match",
      });
    case "resource_missing":
      throw resourceMissing(outcome.message, "version");
    case "nothing_to_roll_back":
      throw invalidRequest("parameter_invalid", outcome.message, "version");
    case "rules_invalid":
      throw invalidRules(outcome.issues, `${outcome.message} `);
    case "rules_unavailable":
      throw new ApiError(503, { type: "api_error", code: "rules_unavailable", message: outcome.message });
  }
}

/**
 * The operator's rules surface (contract 10.1), used by `npm run rules`: the live document with
 * its version as the ETag, a publish guarded by If-Match, the history and a rollback. Behind
 * OPERATOR_SECRET like the rest of the operator surface; every write goes through the one
 * RulesPublisher object, which switches KV's pointer that carts read.
 */
export const operatorRules = new Hono<AppEnv>()
  .use("*", noStore)
  .use("*", requireOperator)
  .get("/", describe("getRules"), async (c) => {
    const live = await rulesPublisher(c.env).live();
    if (!live)
      throw resourceMissing(
        "No rules have been published: the store has no discounts, no shipping charges and no tax. PUT a rules document to publish one.",
      );
    return answer(c, live);
  })
  .put("/", describe("putRules"), async (c) => {
    const condition = ifMatch(c.req.header("if-match"));
    const document = await parseJsonBody(c, z.unknown(), RULES_MAX_BYTES);
    const currency = await liveCurrency(c.env);
    const parsed = parseRules(document, currency);
    if (!parsed.ok) throw invalidRules(parsed.issues);
    const outcome = await rulesPublisher(c.env).publish({
      document: JSON.stringify(document),
      currency,
      ifMatch: condition,
    });
    if (!outcome.ok) refused(outcome);
    return answer(c, outcome.live);
  })
  .get("/versions", describe("listRulesVersions"), async (c) => {
    const history = await rulesPublisher(c.env).history();
    const data = history.map((entry) => ({
      object: "rules_version" as const,
      seq: entry.seq,
      at: entry.at,
      action: entry.action,
      version: entry.version,
      from: entry.from,
      live: entry.live,
      kept: entry.kept,
      discounts: entry.meta?.discounts ?? null,
      codes: entry.meta?.codes ?? null,
      zones: entry.meta?.zones ?? null,
      tax: entry.meta?.tax ?? null,
    }));
    return c.json({ object: "list" as const, count: data.length, data, has_more: false as const }, 200);
  })
  .post("/rollback", describe("rollbackRules"), validJson(RollbackRulesRequestSchema), async (c) => {
    const condition = ifMatch(c.req.header("if-match"));
    const body = c.req.valid("json");
    const currency = await liveCurrency(c.env);
    const outcome = await rulesPublisher(c.env).rollback({
      ...(body.version !== undefined ? { to: body.version } : {}),
      currency,
      ifMatch: condition,
    });
    if (!outcome.ok) refused(outcome);
    return answer(c, outcome.live);
  });
