import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ErrorResponseSchema } from "../../src/http/errors.ts";
import { cartCall, issueToken, seedVariants, type SeedVariants } from "../helpers/cart.ts";
import { API } from "../helpers/worker.ts";

/**
 * Issue 42, point 11: the reference stated note and attribute limits that the 16 KiB body cap
 * (contract 1) answered 413 before. Every limit the served document states is reached here in one
 * request (the widest characters it can be reached with), one past it is the 400 that names the
 * field, never a 413; and where the body bounds a combination first, the reference says so.
 */
type Schema = Record<string, unknown> & { description?: string };

let seed: SeedVariants;
let schemas: Record<string, Schema>;
beforeAll(async () => {
  seed = await seedVariants();
  const doc = (await (await exports.default.fetch(`${API}/openapi.json`)).json()) as {
    components: { schemas: Record<string, Schema> };
  };
  schemas = doc.components.schemas;
});

/** The stated limits of the note and of attributes, as a client reading the document finds them. */
function stated(): { note: number; pairs: number; key: number; value: number } {
  const update = schemas.UpdateCartRequest as { properties: { note: { anyOf: Schema[] } } };
  const attributes = schemas.AttributesInput as Schema & {
    propertyNames: { maxLength: number };
    additionalProperties: { maxLength: number };
  };
  const limits = {
    note: update.properties.note.anyOf[0]!.maxLength as number,
    pairs: attributes.maxProperties as number,
    key: attributes.propertyNames.maxLength,
    value: attributes.additionalProperties.maxLength,
  };
  for (const limit of Object.values(limits)) expect(limit).toBeGreaterThan(0);
  return limits;
}

async function answer(res: Response): Promise<{ status: number; code?: string; param?: string | undefined }> {
  if (res.status === 200) return { status: 200 };
  const { error } = ErrorResponseSchema.parse(await res.json());
  return { status: res.status, code: error.code, param: error.param };
}

const bytes = (body: unknown) => new TextEncoder().encode(JSON.stringify(body)).length;

describe("every note and attribute limit the reference states is reachable in one request", () => {
  it("reaches each stated limit with the widest characters that fit, and answers 400 naming the field one past it, never 413", async () => {
    const { token } = await issueToken("limits");
    const limits = stated();
    const euro = "€"; // 3 bytes: the widest a 5,000-character note can be written in within 16 KiB
    const gift = "🎁"; // 4 bytes: keys and values reach their limits in any script
    const pairs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));
    const patch = (body: unknown) => cartCall(token, "/cart", { method: "PATCH", body });
    const addWith = (attributes: Record<string, string>) =>
      cartCall(token, "/cart/lines", {
        method: "POST",
        body: { variant_id: seed.available[0]!.id, quantity: 1, attributes },
      });
    const key = gift.repeat(limits.key);
    const cases: [string, () => Promise<Response>, { status: number; code?: string; param?: string }][] = [
      ["note at its limit", () => patch({ note: euro.repeat(limits.note) }), { status: 200 }],
      [
        "note past it",
        () => patch({ note: euro.repeat(limits.note + 1) }),
        { status: 400, code: "parameter_invalid", param: "note" },
      ],
      ["cart pairs at the limit", () => patch({ attributes: pairs(limits.pairs) }), { status: 200 }],
      [
        "cart pairs past it",
        () => patch({ attributes: pairs(limits.pairs + 1) }),
        { status: 400, code: "parameter_invalid", param: "attributes" },
      ],
      [
        "a key and a value at their limits",
        () => patch({ attributes: { [key]: gift.repeat(limits.value) } }),
        { status: 200 },
      ],
      [
        "a key past it",
        () => patch({ attributes: { [key + gift]: "v" } }),
        { status: 400, code: "parameter_invalid", param: `attributes.${key}${gift}` },
      ],
      [
        "a value past it",
        () => patch({ attributes: { k: gift.repeat(limits.value + 1) } }),
        { status: 400, code: "parameter_invalid", param: "attributes.k" },
      ],
      ["line pairs at the limit", () => addWith(pairs(limits.pairs)), { status: 200 }],
      [
        "line pairs past it",
        () => addWith(pairs(limits.pairs + 1)),
        { status: 400, code: "parameter_invalid", param: "attributes" },
      ],
      ["a line key and value at their limits", () => addWith({ [key]: gift.repeat(limits.value) }), { status: 200 }],
      [
        "a line value past it",
        () => addWith({ k: gift.repeat(limits.value + 1) }),
        { status: 400, code: "parameter_invalid", param: "attributes.k" },
      ],
    ];
    for (const [name, send, expected] of cases) expect(await answer(await send()), name).toEqual(expected);
  });

  it("states where the 16 KiB body bounds a request first (50 longest pairs, 5,000 emoji) and the cart's byte budget, and answers those 413", async () => {
    const { token } = await issueToken("body first");
    const limits = stated();
    const longest = Object.fromEntries(
      Array.from({ length: limits.pairs }, (_, i) => [`${i}`.padStart(limits.key, "k"), "v".repeat(limits.value)]),
    );
    const emojiNote = "🎁".repeat(limits.note);
    for (const body of [{ attributes: longest }, { note: emojiNote }]) {
      expect(bytes(body)).toBeGreaterThan(16 * 1024);
      expect(await answer(await cartCall(token, "/cart", { method: "PATCH", body }))).toMatchObject({
        status: 413,
        code: "body_too_large",
      });
    }
    // The operations that take them say so (the schemas point there).
    const doc = (await (await exports.default.fetch(`${API}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { description: string }>>;
    };
    for (const op of [doc.paths["/api/v1/cart"]!.patch!, doc.paths["/api/v1/cart/lines"]!.post!]) {
      expect(op.description).toContain("16 KiB");
      expect(op.description).toContain("65,536 bytes");
      expect(op.description).toContain("5,000 emoji");
    }
  });
});
