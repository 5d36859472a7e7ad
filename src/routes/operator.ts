import { Hono } from "hono";
import { IssueTokenRequestSchema, TokenIdSchema } from "../auth/api.ts";
import { noStore } from "../http/no-store.ts";
import { requireOperator } from "../auth/operator-auth.ts";
import { TokenAdmin } from "../auth/token-admin.ts";
import { cartFor } from "../cart/cart-client.ts";
import type { AppEnv } from "../http/app-env.ts";
import { resourceMissing } from "../http/errors.ts";
import { validJson } from "../http/validate.ts";

/** Token administration wired to the cart, which hears of a revocation before KV does. */
function admin(env: Env): TokenAdmin {
  return new TokenAdmin(env.TOKENS, (holder, tokenId) => cartFor(env, holder).revokeToken(tokenId));
}

function tokenId(id: string): string {
  if (!TokenIdSchema.safeParse(id).success) throw resourceMissing(`No token ${id}.`, "id");
  return id;
}

/**
 * The operator's token surface, used by `npm run token`. Guarded by OPERATOR_SECRET, never by
 * a customer token; not exposed to browsers (no CORS). A new token appears in exactly one
 * response (issue or rotate); lists and revocations show records only.
 */
export const operator = new Hono<AppEnv>()
  .use("*", noStore)
  .use("*", requireOperator)
  .get("/tokens", async (c) => {
    const data = await admin(c.env).list();
    return c.json({ object: "list" as const, count: data.length, data, has_more: false as const }, 200);
  })
  .post("/tokens", validJson(IssueTokenRequestSchema), async (c) => {
    const body = c.req.valid("json");
    return c.json(await admin(c.env).issue(body.label), 201);
  })
  .post("/tokens/:id/revoke", async (c) => {
    const id = tokenId(c.req.param("id"));
    const record = await admin(c.env).revoke(id);
    if (!record) throw resourceMissing(`No token ${id}.`, "id");
    return c.json(record, 200);
  })
  .post("/tokens/:id/rotate", async (c) => {
    const id = tokenId(c.req.param("id"));
    const issued = await admin(c.env).rotate(id);
    if (!issued) throw resourceMissing(`No token ${id}.`, "id");
    return c.json(issued, 201);
  });
