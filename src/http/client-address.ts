import type { Context } from "hono";

/**
 * The key every per-address limit counts under (POST /carts, wrong operator secrets, POST
 * /checkouts), from `CF-Connecting-IP`, which Cloudflare sets and a client cannot forge through it.
 *
 * An IPv4 address is one client. An IPv6 address is not: a home or a cloud machine is routinely
 * given a whole /64 (RFC 6177), so counting exact addresses let one client mint 2^64 fresh
 * budgets (issue 42 point 12). An IPv6 address counts by its /64, written in one canonical form
 * (`2001:db8:0:7::/64`) whatever spelling it came in; an IPv4-mapped one (`::ffff:192.0.2.1`) is
 * its IPv4 address. Anything that is not an address is kept as it came (it still has its own
 * budget; Cloudflare never sends one).
 */
export function addressKey(address: string): string {
  const text = address.trim();
  if (!text.includes(":")) return text;
  const groups = ipv6Groups(text);
  if (!groups) return text;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted IPv4 read), or null. */
function ipv6Groups(text: string): number[] | null {
  const address = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    for (const piece of part.split(":")) {
      if (/^\d{1,3}(\.\d{1,3}){3}$/.test(piece)) {
        const bytes = piece.split(".").map(Number);
        if (bytes.some((b) => b > 255)) return null;
        out.push((bytes[0]! << 8) | bytes[1]!, (bytes[2]! << 8) | bytes[3]!);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) out.push(Number.parseInt(piece, 16));
      else return null;
    }
    return out;
  };
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : null;
}

/** The request's per-address key: its `CF-Connecting-IP` as `addressKey` reads it, or undefined without one. */
export function clientAddressKey(c: Context): string | undefined {
  const header = c.req.header("cf-connecting-ip");
  return header === undefined ? undefined : addressKey(header);
}
