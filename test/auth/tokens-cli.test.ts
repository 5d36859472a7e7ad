import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  OperatorClient,
  OperatorError,
  runTokenCommand,
  type TokenAction,
  type TokenCommand,
} from "../../src/cli/operator-client.ts";
import { hashToken } from "../../src/auth/token.ts";
import { BASE, cartCall, OPERATOR_SECRET } from "../helpers/cart.ts";

/** A parsed command line (src/cli/token.ts parses the real one; test/e2e/cli.test.ts runs it). */
function command(action: TokenAction, options: Partial<TokenCommand> = {}): TokenCommand {
  return { action, target: "local", ...options };
}

/** The CLI's client, talking to the real worker in workerd instead of over the network. */
function client(secret = OPERATOR_SECRET): OperatorClient {
  return new OperatorClient(BASE, secret, (input, init) => exports.default.fetch(input, init));
}

describe("npm run token: commands against the worker", () => {
  it("issue prints the new token exactly once, on its own last line, and it works", async () => {
    const lines = await runTokenCommand(command("issue", { label: "cli" }), client());
    const token = lines.at(-1)!;
    expect(token).toMatch(/^sf_live_[0-9A-Za-z]{44}$/);
    expect(lines.filter((l) => l.includes(token))).toHaveLength(1);
    expect((await cartCall(token, "/cart")).status).toBe(200);
  });

  it("list shows records but never a token", async () => {
    const issued = await runTokenCommand(command("issue", { label: "listed-by-cli" }), client());
    const token = issued.at(-1)!;
    const id = /^Issued (tok_\S+)/.exec(issued[0]!)?.[1];
    const listed = await runTokenCommand(command("list"), client());
    expect(
      listed.some((l) => l.startsWith(`${id} `) && l.includes('label="listed-by-cli"') && l.endsWith("active")),
    ).toBe(true);
    expect(listed.join("\n")).not.toContain(token);
  });

  it("revoke makes the token's next cart request fail; rotate hands over a working token", async () => {
    const first = await runTokenCommand(command("issue"), client());
    const id = /^Issued (tok_\S+)/.exec(first[0]!)![1]!;
    const rotated = await runTokenCommand(command("rotate", { id }), client());
    const newToken = rotated.at(-1)!;
    expect((await cartCall(first.at(-1)!, "/cart")).status).toBe(401);
    expect((await cartCall(newToken, "/cart")).status).toBe(200);
    const newId = /into (tok_\S+)/.exec(rotated[0]!)![1]!;
    const revoked = await runTokenCommand(command("revoke", { id: newId }), client());
    expect(revoked[0]).toContain("revoked=");
    expect((await cartCall(newToken, "/cart")).status).toBe(401);
  });

  it("revoke by the token's hash revokes a token whose id the operator does not have", async () => {
    const issued = await runTokenCommand(command("issue", { label: "leaked" }), client());
    const token = issued.at(-1)!;
    const revoked = await runTokenCommand(command("revoke", { tokenSha256: await hashToken(token) }), client());
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatch(/^Revoked tok_\S+ .*revoked=/);
    expect(revoked[0]).not.toContain(token);
    expect((await cartCall(token, "/cart")).status).toBe(401);
  });

  it("reports a wrong operator secret as a 401 from the operator surface", async () => {
    await expect(runTokenCommand(command("list"), client("not-the-operator-secret"))).rejects.toMatchObject({
      name: "OperatorError",
      status: 401,
    });
    await expect(runTokenCommand(command("revoke", { id: "tok_missing" }), client())).rejects.toBeInstanceOf(
      OperatorError,
    );
  });
});
