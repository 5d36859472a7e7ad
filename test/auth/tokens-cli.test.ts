import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { OperatorClient, OperatorError, parseTokenArgs, runTokenCommand, UsageError } from "../../src/auth/operator-client.ts";
import { BASE, cartCall, OPERATOR_SECRET } from "../helpers/cart.ts";

/** The CLI's client, talking to the real worker in workerd instead of over the network. */
function client(secret = OPERATOR_SECRET): OperatorClient {
  return new OperatorClient(BASE, secret, (input, init) => exports.default.fetch(input, init));
}

describe("npm run token: arguments", () => {
  it("parses each command with its options, local by default", () => {
    expect(parseTokenArgs(["issue", "--label", "web shop"])).toEqual({ action: "issue", target: "local", label: "web shop" });
    expect(parseTokenArgs(["revoke", "--id=tok_abc", "--remote", "--url", "https://x.example"])).toEqual({
      action: "revoke",
      target: "remote",
      id: "tok_abc",
      url: "https://x.example",
    });
    expect(parseTokenArgs(["rotate", "--id", "tok_abc", "--local", "--persist-to", "/tmp/state"])).toMatchObject({ target: "local", persistTo: "/tmp/state" });
    expect(parseTokenArgs(["list"])).toEqual({ action: "list", target: "local" });
  });

  it("refuses what it cannot run with a usage error", () => {
    for (const argv of [[], ["delete"], ["revoke"], ["rotate", "--local"], ["list", "--local", "--remote"], ["issue", "--label"], ["issue", "--bogus"], ["list", "--label", "x"], ["list", "--remote", "--persist-to", "/x"]]) {
      expect(() => parseTokenArgs(argv), JSON.stringify(argv)).toThrow(UsageError);
    }
  });
});

describe("npm run token: commands against the worker", () => {
  it("issue prints the new token exactly once, on its own last line, and it works", async () => {
    const lines = await runTokenCommand(parseTokenArgs(["issue", "--label", "cli"]), client());
    const token = lines.at(-1)!;
    expect(token).toMatch(/^sf_live_[0-9A-Za-z]{44}$/);
    expect(lines.filter((l) => l.includes(token))).toHaveLength(1);
    expect((await cartCall(token, "/cart")).status).toBe(200);
  });

  it("list shows records but never a token", async () => {
    const issued = await runTokenCommand(parseTokenArgs(["issue", "--label", "listed-by-cli"]), client());
    const token = issued.at(-1)!;
    const id = /^Issued (tok_\S+)/.exec(issued[0]!)?.[1];
    const listed = await runTokenCommand(parseTokenArgs(["list"]), client());
    expect(listed.some((l) => l.startsWith(`${id} `) && l.includes('label="listed-by-cli"') && l.endsWith("active"))).toBe(true);
    expect(listed.join("\n")).not.toContain(token);
  });

  it("revoke makes the token's next cart request fail; rotate hands over a working token", async () => {
    const first = await runTokenCommand(parseTokenArgs(["issue"]), client());
    const id = /^Issued (tok_\S+)/.exec(first[0]!)![1]!;
    const rotated = await runTokenCommand(parseTokenArgs(["rotate", "--id", id]), client());
    const newToken = rotated.at(-1)!;
    expect((await cartCall(first.at(-1)!, "/cart")).status).toBe(401);
    expect((await cartCall(newToken, "/cart")).status).toBe(200);
    const newId = /into (tok_\S+)/.exec(rotated[0]!)![1]!;
    const revoked = await runTokenCommand(parseTokenArgs(["revoke", "--id", newId]), client());
    expect(revoked[0]).toContain("revoked=");
    expect((await cartCall(newToken, "/cart")).status).toBe(401);
  });

  it("reports a wrong operator secret as a 401 from the operator surface", async () => {
    await expect(runTokenCommand(parseTokenArgs(["list"]), client("not-the-operator-secret"))).rejects.toMatchObject({
      name: "OperatorError",
      status: 401,
    });
    await expect(runTokenCommand(parseTokenArgs(["revoke", "--id", "tok_missing"]), client())).rejects.toBeInstanceOf(OperatorError);
  });
});
