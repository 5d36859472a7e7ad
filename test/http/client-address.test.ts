import { describe, expect, it } from "vitest";
import { addressKey } from "../../src/http/client-address.ts";

/** The key every per-address limit counts under (src/http/client-address.ts, issue 42 point 12). */
describe("addressKey", () => {
  it("keeps an IPv4 address as it is", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey(" 198.51.100.20 ")).toBe("198.51.100.20");
  });

  it("keys an IPv6 address by its /64, the same whatever spelling", () => {
    const key = "2001:db8:0:7::/64";
    for (const spelling of [
      "2001:db8:0:7::1",
      "2001:db8:0:7:ffff:ffff:ffff:ffff",
      "2001:0DB8:0000:0007:0000:0000:0000:0001",
      "2001:db8::7:1:2:3:4",
      "[2001:db8:0:7::abcd]",
      "2001:db8:0:7::1%eth0",
      "2001:db8:0:7:1:2:192.0.2.1",
    ])
      expect(addressKey(spelling), spelling).toBe(key);
    expect(addressKey("2001:db8:0:8::1")).toBe("2001:db8:0:8::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::")).toBe("0:0:0:0::/64");
  });

  it("reads an IPv4-mapped IPv6 address as its IPv4 address", () => {
    expect(addressKey("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressKey("::ffff:c000:201")).toBe("192.0.2.1");
  });

  it("keeps what is not an address as it came", () => {
    for (const odd of ["not-an-address", "1:2:3", "1::2::3", "2001:db8:0:7:1:2:3:4:5", "g::1", ""])
      expect(addressKey(odd)).toBe(odd);
  });
});
