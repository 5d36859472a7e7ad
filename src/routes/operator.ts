import { Hono } from "hono";
import { IssueTokenRequestSchema, TokenIdSchema } from "../auth/api.ts";
import { noStore } from "../auth/no-store.ts";
import { requireOperator } from "../auth/operator-auth.ts";
import { TokenAdmin } from "../auth/token-admin.ts";
import type { AppEnv } from "../http/app-env.ts";
import { resourceMissing } from "../http/errors.ts";
import { validJson } from "../http/validate.ts";

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
    const data = await new TokenAdmin(c.env).list();
    return c.json({ object: "list" as const, count: data.length, data, has_more: false as const }, 200);
  })
  .post("/tokens", validJson(IssueTokenRequestSchema), async (c) => {
    const body = c.req.valid("json");
    return c.json(await new TokenAdmin(c.env).issue(body.label), 201);
  })
  .post("/tokens/:id/revoke", async (c) => {
    const id = tokenId(c.req.param("id"));
    const record = await new TokenAdmin(c.env).revoke(id);
    if (!record) throw resourceMissing(`No token ${id}.`, "id");
    return c.json(record, 200);
  })
  .post("/tokens/:id/rotate", async (c) => {
    const id = tokenId(c.req.param("id"));
    const issued = await new TokenAdmin(c.env).rotate(id);
    if (!issued) throw resourceMissing(`No token ${id}.`, "id");
    return c.json(issued, 201);
  });
