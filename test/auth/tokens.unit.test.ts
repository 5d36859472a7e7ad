import { describe, expect, it } from "vitest";
import { readCredential } from "../../src/http/bearer.ts";
import { hashToken, isDevToken, isWellFormedToken, LIVE_PREFIX, newToken } from "../../src/auth/token.ts";
import { ApiError } from "../../src/http/errors.ts";

describe("token minting", () => {
  it("mints sf_live_ tokens carrying at least 256 bits of base62 randomness", () => {
    const token = newToken();
    expect(token.startsWith(LIVE_PREFIX)).toBe(true);
    const secret = token.slice(LIVE_PREFIX.length);
    expect(secret).toMatch(/^[0-9A-Za-z]+$/);
    expect(secret.length * Math.log2(62)).toBeGreaterThanOrEqual(256);
    expect(isWellFormedToken(token)).toBe(true);
  });

  it("never mints the same token twice in 1,000 draws and uses the whole alphabet", () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => newToken()));
    expect(tokens.size).toBe(1000);
    const seen = new Set([...tokens].join("").replaceAll(LIVE_PREFIX, ""));
    expect(seen.size).toBe(62);
  });

  it("stores tokens as the hex SHA-256 of the exact token", async () => {
    expect(await hashToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await hashToken("sf_live_A")).not.toBe(await hashToken("sf_live_a"));
  });

  it("recognises development tokens and rejects shapes that are no token at all", () => {
    expect(isDevToken("sf_dev_LocalToken_A1")).toBe(true);
    expect(isDevToken(newToken())).toBe(false);
    expect(isWellFormedToken("sf_dev_LocalToken_A1")).toBe(true);
    for (const bad of [
      "",
      "sf_live_",
      "sk_live_abcdefghijkl",
      "sf_live_abc def",
      "sf_live_ab",
      `sf_live_${"a".repeat(200)}`,
    ]) {
      expect(isWellFormedToken(bad)).toBe(false);
    }
  });
});

describe("Authorization header parsing", () => {
  it("takes the scheme word in any case and the token byte for byte", () => {
    expect(readCredential("Bearer sf_live_AbC")).toEqual({ kind: "bearer", token: "sf_live_AbC" });
    expect(readCredential("bearer sf_live_AbC")).toEqual({ kind: "bearer", token: "sf_live_AbC" });
    expect(readCredential("BEARER sf_live_AbC")).toEqual({ kind: "bearer", token: "sf_live_AbC" });
  });

  it("treats an absent or blank header as no credential", () => {
    expect(readCredential(undefined)).toEqual({ kind: "none" });
    expect(readCredential("  ")).toEqual({ kind: "none" });
  });

  it("treats another scheme or a bare token as an unusable credential", () => {
    expect(readCredential("Basic dXNlcjpwYXNz")).toEqual({ kind: "unusable" });
    expect(readCredential("sf_live_abc")).toEqual({ kind: "unusable" });
    expect(readCredential("Bearer")).toEqual({ kind: "unusable" });
    expect(readCredential("Bearer a b")).toEqual({ kind: "unusable" });
  });

  it("rejects two Authorization headers (joined by a comma) with 400", () => {
    let thrown: unknown;
    try {
      readCredential("Bearer sf_live_one, Bearer sf_live_two");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).status).toBe(400);
    expect((thrown as ApiError).body).toMatchObject({ type: "invalid_request_error", param: "Authorization" });
  });
});
