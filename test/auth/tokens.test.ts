import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { TokenListSchema, TokenRecordSchema, IssuedTokenSchema, type TokenRecord } from "../../src/auth/api.ts";
import { hashToken } from "../../src/auth/token.ts";
import { DEV_TOKENS, seedDevTokens } from "../../src/cli/dev-tokens.ts";
import app from "../../src/index.ts";
import { BASE, call, cartCall, issueToken, operator, seedVariants, type SeedVariants } from "../helpers/cart.ts";
import { countingKv } from "../helpers/counting-kv.ts";
import { fetchAs } from "../helpers/worker.ts";

let seed: SeedVariants;
beforeAll(async () => {
  seed = await seedVariants();
});

/** Every key, value and metadata of the TOKENS namespace, as text. */
async function tokensNamespaceDump(): Promise<string[]> {
  const out: string[] = [];
  const { keys } = await env.TOKENS.list();
  for (const key of keys) {
    out.push(key.name, JSON.stringify(key.metadata ?? null), (await env.TOKENS.get(key.name)) ?? "");
  }
  return out;
}

describe("operator surface", () => {
  it("issues a token once, with a record that names its holder and label", async () => {
    const res = await operator("/tokens", { method: "POST", body: JSON.stringify({ label: "pos terminal" }) });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const issued = IssuedTokenSchema.parse(await res.json());
    expect(issued.token).toMatch(/^sf_live_[0-9A-Za-z]{44}$/);
    expect(issued).toMatchObject({ object: "token", label: "pos terminal", revoked_at: null });
    expect((await cartCall(issued.token, "/cart")).status).toBe(200);
  });

  it("stores only the SHA-256 of a token, never the token", async () => {
    const issued = await issueToken("storage check");
    const dump = await tokensNamespaceDump();
    expect(dump.join("\n")).not.toContain(issued.token);
    expect(dump).toContain(`hash:${await hashToken(issued.token)}`);
  });

  it("lists records without any token or token hash", async () => {
    const issued = await issueToken("listed");
    const res = await operator("/tokens");
    expect(res.status).toBe(200);
    const text = await res.text();
    const list = TokenListSchema.parse(JSON.parse(text));
    expect(list.data.map((r) => r.id)).toContain(issued.id);
    expect(list.count).toBe(list.data.length);
    expect(text).not.toContain(issued.token);
    expect(text).not.toContain(await hashToken(issued.token));
  });

  it("refuses a missing, wrong or customer credential with 401", async () => {
    const { token } = await issueToken();
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: "Bearer wrong-operator-secret" },
      { Authorization: `Bearer ${token}` },
      { Authorization: "Bearer sf_dev_LocalToken_A1" },
      { Authorization: "Basic dGVzdC1vcGVyYXRvci1zZWNyZXQ=" },
    ];
    for (const headers of attempts) {
      for (const [method, path] of [
        ["GET", "/tokens"],
        ["POST", "/tokens"],
      ] as const) {
        const res = await call(`/api/v1/operator${path}`, {
          method,
          headers: { ...headers, "Content-Type": "application/json" },
          ...(method === "POST" ? { body: "{}" } : {}),
        });
        expect(res.status).toBe(401);
        expect(await res.json()).toMatchObject({ error: { type: "authentication_error" } });
      }
    }
  });

  it("keeps the operator surface closed when OPERATOR_SECRET is not set", async () => {
    const ctx = createExecutionContext();
    const { OPERATOR_SECRET: _unset, ...withoutSecret } = env as Env & { OPERATOR_SECRET?: string };
    const res = await app.fetch(
      new Request(`${BASE}/api/v1/operator/tokens`, {
        headers: { Authorization: "Bearer any-credential-at-all-0123456789" },
      }),
      withoutSecret as Env,
      ctx,
    );
    expect(res.status).toBe(401);
  });

  it("follows a changed OPERATOR_SECRET at once: the new one is accepted and the old one refused", async () => {
    const list = (secret: string, vars: Partial<Env>) =>
      fetchAs("production", "/api/v1/operator/tokens", { headers: { Authorization: `Bearer ${secret}` } }, vars);
    const old = (env as Env & { OPERATOR_SECRET: string }).OPERATOR_SECRET;
    const rotated = "rotated-operator-secret-0123456789";
    expect((await list(old, {})).status).toBe(200);
    // The digest of the configured secret is kept per isolate: a new secret must not meet the old digest.
    expect((await list(rotated, { OPERATOR_SECRET: rotated } as Partial<Env>)).status).toBe(200);
    expect((await list(old, { OPERATOR_SECRET: rotated } as Partial<Env>)).status).toBe(401);
    expect((await list(old, {})).status).toBe(200);
  });

  it("does not accept the operator secret as a cart token", async () => {
    const res = await call("/api/v1/cart", { headers: { Authorization: "Bearer test-operator-secret" } });
    expect(res.status).toBe(401);
  });

  it("rejects unknown fields when issuing", async () => {
    const res = await operator("/tokens", {
      method: "POST",
      body: JSON.stringify({ label: "x", holder: "hld_someone_else" }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "parameter_unknown", param: "holder" } });
  });

  it("answers 404 resource_missing when revoking or rotating an unknown id", async () => {
    for (const action of ["revoke", "rotate"]) {
      const res = await operator(`/tokens/tok_doesnotexist/${action}`, { method: "POST" });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: "resource_missing" } });
    }
  });
});

describe("the token-record memo", () => {
  it("reads a valid token's record from KV once, then trusts it in this isolate (no TOKENS read on the next request)", async () => {
    const issued = await issueToken();
    const counting = countingKv(env.TOKENS);
    const init = { headers: { Authorization: `Bearer ${issued.token}` } };
    expect((await fetchAs("development", "/api/v1/cart", init, { TOKENS: counting.kv })).status).toBe(200);
    expect(counting.reads).toHaveLength(1);
    expect((await fetchAs("development", "/api/v1/cart", init, { TOKENS: counting.kv })).status).toBe(200);
    expect(counting.reads).toHaveLength(1);
  });

  it("never keeps an unknown or revoked token: each of their requests reads KV again", async () => {
    const issued = await issueToken();
    await operator(`/tokens/${issued.id}/revoke`, { method: "POST" });
    const counting = countingKv(env.TOKENS);
    for (const token of [issued.token, "sf_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]) {
      const init = { headers: { Authorization: `Bearer ${token}` } };
      expect((await fetchAs("development", "/api/v1/cart", init, { TOKENS: counting.kv })).status).toBe(401);
      expect((await fetchAs("development", "/api/v1/cart", init, { TOKENS: counting.kv })).status).toBe(401);
    }
    expect(counting.reads).toHaveLength(4);
  });
});

describe("revocation", () => {
  it("fails the very next cart request after a revoke", async () => {
    const issued = await issueToken();
    const variant = seed.available[0]!;
    expect(
      (await cartCall(issued.token, "/cart/lines", { method: "POST", body: { variant_id: variant.id, quantity: 1 } }))
        .status,
    ).toBe(200);
    const revoked = await operator(`/tokens/${issued.id}/revoke`, { method: "POST" });
    expect(revoked.status).toBe(200);
    expect(TokenRecordSchema.parse(await revoked.json()).revoked_at).not.toBeNull();
    const next = await cartCall(issued.token, "/cart");
    expect(next.status).toBe(401);
    expect(next.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("refuses a revoked token on the cart and at checkout even while KV still serves the old record", async () => {
    const issued = await issueToken();
    const key = `hash:${await hashToken(issued.token)}`;
    const before = await env.TOKENS.getWithMetadata<TokenRecord>(key);
    expect((await operator(`/tokens/${issued.id}/revoke`, { method: "POST" })).status).toBe(200);
    // Play a KV edge that has not seen the revocation yet: put the unrevoked record back.
    await env.TOKENS.put(key, before.value ?? "", { metadata: before.metadata });
    for (const [method, path, body] of [
      ["GET", "/cart", undefined],
      ["POST", "/cart/lines", { variant_id: seed.available[0]!.id, quantity: 1 }],
      ["DELETE", "/cart", undefined],
      ["POST", "/checkouts", undefined],
    ] as const) {
      const res = await cartCall(issued.token, path, { method, ...(body ? { body } : {}) });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { type: "authentication_error" } });
    }
  });

  it("answers the same record when a token is revoked twice", async () => {
    const issued = await issueToken();
    const first = TokenRecordSchema.parse(
      await (await operator(`/tokens/${issued.id}/revoke`, { method: "POST" })).json(),
    );
    const second = TokenRecordSchema.parse(
      await (await operator(`/tokens/${issued.id}/revoke`, { method: "POST" })).json(),
    );
    expect(second.revoked_at).toBe(first.revoked_at);
  });

  it("refuses a revoked token at checkout once KV has the revocation", async () => {
    const issued = await issueToken();
    await operator(`/tokens/${issued.id}/revoke`, { method: "POST" });
    const res = await cartCall(issued.token, "/checkouts", { method: "POST" });
    expect(res.status).toBe(401);
  });
});

describe("revocation by the token's hash (an operator holding a leaked token, not its id)", () => {
  it("revokes the token whose SHA-256 is sent, and its very next cart request is 401", async () => {
    const issued = await issueToken("leaked");
    expect((await cartCall(issued.token, "/cart")).status).toBe(200);
    const res = await operator("/tokens/revoke", {
      method: "POST",
      body: JSON.stringify({ token_sha256: await hashToken(issued.token) }),
    });
    expect(res.status).toBe(200);
    const record = TokenRecordSchema.parse(await res.json());
    expect(record.id).toBe(issued.id);
    expect(record.revoked_at).not.toBeNull();
    expect((await cartCall(issued.token, "/cart")).status).toBe(401);
    const again = await operator("/tokens/revoke", {
      method: "POST",
      body: JSON.stringify({ token_sha256: await hashToken(issued.token) }),
    });
    expect(again.status).toBe(200);
    expect(TokenRecordSchema.parse(await again.json()).revoked_at).toBe(record.revoked_at);
  });

  it("answers 404 for a hash no token has, 400 for anything but 64 hex digits, and never repeats either", async () => {
    const unknown = "ab".repeat(32);
    const missing = await operator("/tokens/revoke", {
      method: "POST",
      body: JSON.stringify({ token_sha256: unknown }),
    });
    expect(missing.status).toBe(404);
    const missingText = await missing.text();
    expect(JSON.parse(missingText)).toMatchObject({ error: { code: "resource_missing", param: "token_sha256" } });
    expect(missingText).not.toContain(unknown);
    const leaked = `sf_live_${"Q".repeat(44)}`;
    for (const body of [{ token_sha256: leaked }, { token: leaked }, {}]) {
      const res = await operator("/tokens/revoke", { method: "POST", body: JSON.stringify(body) });
      expect(res.status).toBe(400);
      expect(await res.text()).not.toContain(leaked);
    }
  });

  it("needs the operator secret like every operator route", async () => {
    const issued = await issueToken();
    const hash = await hashToken(issued.token);
    const res = await call("/api/v1/operator/tokens/revoke", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${issued.token}` },
      body: JSON.stringify({ token_sha256: hash }),
    });
    expect(res.status).toBe(401);
    expect((await cartCall(issued.token, "/cart")).status).toBe(200);
  });
});

describe("regression: defect 4, the operator API echoed a token given in place of an id", () => {
  const leaked = `sf_live_${"Z9".repeat(22)}`;

  it("never repeats a token sent where a token id belongs, on revoke or rotate", async () => {
    for (const action of ["revoke", "rotate"]) {
      const res = await operator(`/tokens/${leaked}/${action}`, { method: "POST" });
      expect(res.status).toBe(404);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ error: { code: "resource_missing", param: "id" } });
      expect(text).not.toContain(leaked);
      expect(text).not.toMatch(/sf_live_[A-Za-z0-9]/);
    }
  });

  it("never repeats a token in any error answer that quotes the request (unknown route, unknown query parameter)", async () => {
    for (const res of [
      await operator(`/tokens/${leaked}`),
      await call(`/api/v1/${leaked}`),
      await call(`/api/v1/products?${leaked}=1`),
      await call(`/api/v1/products/${leaked}`),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      const text = await res.text();
      expect(text, text).not.toContain(leaked);
      expect(text).not.toMatch(/sf_live_[A-Za-z0-9]/);
    }
  });
});

describe("rotation", () => {
  it("issues a new token for the same holder, keeps the cart and revokes the old token", async () => {
    const issued = await issueToken("rotating");
    const variant = seed.available[1]!;
    await cartCall(issued.token, "/cart/lines", { method: "POST", body: { variant_id: variant.id, quantity: 3 } });
    const res = await operator(`/tokens/${issued.id}/rotate`, { method: "POST" });
    expect(res.status).toBe(201);
    const rotated = IssuedTokenSchema.parse(await res.json());
    expect(rotated.id).not.toBe(issued.id);
    expect(rotated.token).not.toBe(issued.token);
    expect(rotated.holder).toBe(issued.holder);
    expect(rotated.label).toBe("rotating");
    expect((await cartCall(issued.token, "/cart")).status).toBe(401);
    const cart = (await (await cartCall(rotated.token, "/cart")).json()) as {
      lines: { variant_id: string; quantity: number }[];
    };
    expect(cart.lines).toEqual([expect.objectContaining({ variant_id: variant.id, quantity: 3 })]);
  });

  // Regression (issue 33, Schemathesis): a revoked token rotated seven times gave seven live tokens.
  it("refuses to rotate a revoked token with 409 token_already_revoked, issuing nothing", async () => {
    const issued = await issueToken("leaked");
    expect((await operator(`/tokens/${issued.id}/revoke`, { method: "POST" })).status).toBe(200);
    const before = (await tokensNamespaceDump()).length;
    for (let i = 0; i < 3; i++) {
      const res = await operator(`/tokens/${issued.id}/rotate`, { method: "POST" });
      expect(res.status).toBe(409);
      expect(res.headers.get("cache-control")).toBe("no-store");
      const body = (await res.json()) as { error: Record<string, unknown> };
      expect(body.error).toMatchObject({ type: "invalid_request_error", code: "token_already_revoked", param: "id" });
    }
    expect((await tokensNamespaceDump()).length).toBe(before);
  });

  it("refuses a second rotation of a rotated token, with or without a new Idempotency-Key", async () => {
    const issued = await issueToken("rotated once");
    expect((await operator(`/tokens/${issued.id}/rotate`, { method: "POST" })).status).toBe(201);
    expect((await operator(`/tokens/${issued.id}/rotate`, { method: "POST" })).status).toBe(409);
    const keyed = await operator(`/tokens/${issued.id}/rotate`, {
      method: "POST",
      headers: { "Idempotency-Key": "another-key" },
    });
    expect(keyed.status).toBe(409);
  });

  it("answers a retry with the same Idempotency-Key with the first rotation's token, still live", async () => {
    const issued = await issueToken("retried");
    const rotate = () =>
      operator(`/tokens/${issued.id}/rotate`, { method: "POST", headers: { "Idempotency-Key": "rotation-1" } });
    const first = await rotate();
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const token = IssuedTokenSchema.parse(await first.json());
    const again = await rotate();
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(IssuedTokenSchema.parse(await again.json())).toEqual(token);
    expect((await cartCall(token.token, "/cart")).status).toBe(200);
    expect((await cartCall(issued.token, "/cart")).status).toBe(401);
    // One new record, not one per call; and what is stored is the hash, never the token.
    const holders = (await (await operator("/tokens")).json()) as { data: TokenRecord[] };
    expect(holders.data.filter((r) => r.holder === issued.holder).length).toBe(2);
    expect((await tokensNamespaceDump()).join("\n")).not.toContain(token.token);
    // Once that token is revoked too, the retry is refused like any other rotation of a revoked token.
    expect((await operator(`/tokens/${token.id}/revoke`, { method: "POST" })).status).toBe(200);
    expect((await rotate()).status).toBe(409);
  });

  it("refuses a malformed Idempotency-Key on rotate with 400, rotating nothing", async () => {
    const issued = await issueToken("bad key");
    const res = await operator(`/tokens/${issued.id}/rotate`, {
      method: "POST",
      headers: { "Idempotency-Key": "two words" },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe("Idempotency-Key");
    expect((await cartCall(issued.token, "/cart")).status).toBe(200);
  });
});

describe("development tokens", () => {
  it("seeds both dev tokens idempotently", async () => {
    await seedDevTokens(env);
    const first = await tokensNamespaceDump();
    await seedDevTokens(env);
    expect(await tokensNamespaceDump()).toEqual(first);
    for (const { token, id } of DEV_TOKENS) {
      expect(first).toContain(`hash:${await hashToken(token)}`);
      expect(first.join("\n")).not.toContain(token);
      expect(first).toContain(`id:${id}`);
    }
  });

  it("accepts sf_dev_ tokens in development, each with its own cart", async () => {
    await seedDevTokens(env);
    const [a, b] = DEV_TOKENS;
    const variant = seed.available[2]!;
    const added = await cartCall(a.token, "/cart/lines", {
      method: "POST",
      body: { variant_id: variant.id, quantity: 1 },
    });
    expect(added.status).toBe(200);
    const other = (await (await cartCall(b.token, "/cart")).json()) as { lines: unknown[] };
    expect(other.lines).toEqual([]);
  });

  it("refuses every sf_dev_ token when ENVIRONMENT is not development", async () => {
    await seedDevTokens(env);
    for (const environment of ["production", "staging", ""]) {
      for (const { token } of DEV_TOKENS) {
        const res = await fetchAs(environment, "/api/v1/cart", { headers: { Authorization: `Bearer ${token}` } });
        expect(res.status).toBe(401);
        expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
      }
    }
    const live = await issueToken();
    expect(
      (await fetchAs("production", "/api/v1/cart", { headers: { Authorization: `Bearer ${live.token}` } })).status,
    ).toBe(200);
  });
});

// Last in the file: it revokes a dev token for good in this file's storage.
describe("npm run dev's dev-token announcement", () => {
  it("reports only the dev tokens that work: a revoked one is left out, by id", async () => {
    await seedDevTokens(env);
    const [a] = DEV_TOKENS;
    const b = DEV_TOKENS[1];
    expect((await operator(`/tokens/${b.id}/revoke`, { method: "POST" })).status).toBe(200);
    const state = await seedDevTokens(env);
    expect(state).toEqual({ working: [a.token], revokedIds: [b.id] });
    expect((await cartCall(b.token, "/cart")).status).toBe(401);
  });
});
