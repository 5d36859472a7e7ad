import { readFile } from "node:fs/promises";
import { describe, expect, inject, it } from "vitest";
import { runCli, STACK_FRAME } from "../helpers/cli.ts";

const base = inject("e2eBaseUrl");

async function cartStatus(token: string): Promise<number> {
  const res = await fetch(`${base}/api/v1/cart`, { headers: { Authorization: `Bearer ${token}` } });
  await res.body?.cancel();
  return res.status;
}

/** `npm run token -- issue` against the e2e dev server; the token is the last line, printed once. */
async function issue(label: string): Promise<string> {
  const run = await runCli("token", ["issue", "--label", label, "--url", base]);
  expect(run.code, run.stderr).toBe(0);
  const token = run.stdout.trimEnd().split("\n").at(-1)!;
  expect(token).toMatch(/^sf_live_[0-9A-Za-z]{44}$/);
  return token;
}

describe("npm run token -- revoke --token (a leaked token whose id the operator does not have)", () => {
  it("revokes it, and the token's very next cart request is 401", async () => {
    const token = await issue("leaked-cli");
    expect(await cartStatus(token)).toBe(200);
    const run = await runCli("token", ["revoke", "--token", token, "--url", base]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Revoked tok_\S+ .*revoked=/);
    expect(run.stdout + run.stderr).not.toContain(token);
    expect(await cartStatus(token)).toBe(401);
  });

  it("reads the token from stdin with --token -, so it stays out of shell history", async () => {
    const token = await issue("leaked-stdin");
    const run = await runCli("token", ["revoke", "--token", "-", "--url", base], { stdin: `${token}\n` });
    expect(run.code, run.stderr).toBe(0);
    expect(await cartStatus(token)).toBe(401);
  });

  it("never sends the token: the server's output holds neither the token nor its revocation path with it", async () => {
    const token = await issue("leaked-log");
    await runCli("token", ["revoke", "--token", token, "--url", base]);
    const log = await readFile(inject("e2eLogFile"), "utf8");
    expect(log).toContain("POST /api/v1/operator/tokens/revoke");
    expect(log).not.toContain(token);
  });

  it("says so when no token has that value (exit 1, the token not repeated)", async () => {
    const unknown = `sf_live_${"N".repeat(44)}`;
    const run = await runCli("token", ["revoke", "--token", unknown, "--url", base]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("The operator surface answered 404: No token has that hash.");
    expect(run.stdout + run.stderr).not.toContain(unknown);
    expect(run.stderr).not.toMatch(STACK_FRAME);
  });
});

describe("npm run token -- revoke --token - with a shopper token (sf_cart_, from POST /carts)", () => {
  it("revokes it in its holder's cart: the very next cart request is 401 token_revoked, and the token never left the operator's machine", async () => {
    const created = await fetch(`${base}/api/v1/carts`, { method: "POST" });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    expect(await cartStatus(token)).toBe(200);
    const run = await runCli("token", ["revoke", "--token", "-", "--url", base], {
      stdin: `${token}
`,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Revoked the shopper token of holder=shp_[0-9a-f]{32} /);
    expect(run.stdout + run.stderr).not.toContain(token);
    const res = await fetch(`${base}/api/v1/cart`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: "token_revoked" } });
    const log = await readFile(inject("e2eLogFile"), "utf8");
    expect(log).toContain("POST /api/v1/operator/tokens/revoke-shopper");
    expect(log).not.toContain(token);
    // The signature, the secret part, appears nowhere in what was logged.
    expect(log).not.toContain(token.slice(-64));
  });

  it("refuses a cut-off shopper token as a usage error (exit 2), without repeating it", async () => {
    const cut = `sf_cart_${"ab".repeat(40)}`;
    const run = await runCli("token", ["revoke", "--token", cut, "--url", base]);
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).not.toContain(cut);
  });
});

describe("regression: defect 4 over real HTTP, the operator API echoed a token given as an id", () => {
  it("answers 404 without the token", async () => {
    const token = `sf_live_${"E".repeat(44)}`;
    const res = await fetch(`${base}/api/v1/operator/tokens/${token}/revoke`, {
      method: "POST",
      headers: { Authorization: "Bearer dev-operator-secret" },
    });
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain(token);
  });
});

describe("npm run token -- --remote", () => {
  it.each([
    ["http://example.com", 2],
    ["http://storefront.example.workers.dev/", 2],
    ["ftp://example.com", 2],
    ["not a url", 2],
  ])("refuses --url %s with a one-line usage error, exit %i, before sending anything", async (url, code) => {
    const run = await runCli("token", ["list", "--remote", "--url", url], {
      env: { OPERATOR_SECRET: "remote-operator-secret-0123" },
    });
    expect(run.code).toBe(code);
    expect(run.stdout).toBe("");
    expect(run.stderr.split("\n")[0]).toMatch(/--url/);
    expect(run.stderr).not.toContain("remote-operator-secret-0123");
    expect(run.stderr).not.toMatch(STACK_FRAME);
  });

  it("accepts plain http:// to this machine (the e2e dev server, by 127.0.0.1 or localhost)", async () => {
    const port = new URL(base).port;
    for (const host of ["127.0.0.1", "localhost"]) {
      const run = await runCli("token", ["list", "--remote", "--url", `http://${host}:${port}`], {
        env: { OPERATOR_SECRET: "dev-operator-secret" },
      });
      expect(run.code, run.stderr).toBe(0);
    }
  });
});
