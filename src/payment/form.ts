/**
 * Stripe's request bodies: `application/x-www-form-urlencoded` with bracket notation for nested
 * fields (`line_items[0][price_data][unit_amount]=1000`, `metadata[checkout_id]=chk_…`). Each
 * key and value is percent-encoded as `URLSearchParams` does (space as `+`), brackets included,
 * as Stripe's own libraries send them.
 */
export type FormValue = string | number | boolean | null | undefined | FormObject | FormValue[];
export interface FormObject {
  [key: string]: FormValue;
}

function flatten(prefix: string, value: FormValue, out: URLSearchParams): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => flatten(`${prefix}[${index}]`, item, out));
  } else if (typeof value === "object") {
    for (const [key, item] of Object.entries(value)) flatten(prefix ? `${prefix}[${key}]` : key, item, out);
  } else {
    out.append(prefix, String(value));
  }
}

/** The form body of `params`; undefined and null fields are left out. */
export function formBody(params: FormObject): string {
  const out = new URLSearchParams();
  flatten("", params, out);
  return out.toString();
}
