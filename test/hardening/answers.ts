import { ErrorResponseSchema } from "../../src/http/errors.ts";
import { allowedStatuses, contractFiveHundreds, endpointOf } from "./endpoints.ts";
import type { SecretScanner } from "./secrets.ts";

/** The ALLOWED_ORIGINS the workerd project runs with (vitest.config.ts), restated as an oracle. */
export function originAllowedInTests(origin: string): boolean {
  return origin === "https://shop.example" || /^http:\/\/localhost:\d{1,5}$/.test(origin);
}

const PRIVATE = new Set([
  "cart",
  "cart-lines",
  "cart-line",
  "checkouts",
  "checkout",
  "webhook",
  "dev-pay",
  "login",
  "operator",
]);

/** What was sent, as far as the checks need it. */
export interface Sent {
  method: string;
  /** The path as the worker sees it (`new URL(url).pathname`). */
  path: string;
  origin?: string | null;
}

/** What was found wrong with one answer; empty when it is one the contract allows. */
export interface Verdict {
  status: number;
  problems: string[];
  /** An unexpected 5xx (not the contract's 501/503 on their endpoints). */
  unexpected5xx: boolean;
  body: string;
}

/**
 * Checks one answer against the contract's rules that hold for every request: status allowed
 * for the endpoint, no unexpected 5xx, errors in the exact envelope, 304s empty, request id and
 * nosniff stamped, private answers `no-store`, CORS never widened, no secret or stack trace in
 * the body or headers. Reads the body.
 */
export async function judge(
  sent: Sent,
  res: Response,
  scanner: SecretScanner,
  originAllowed: (origin: string) => boolean = originAllowedInTests,
): Promise<Verdict> {
  const problems: string[] = [];
  const body = await res.text();
  const status = res.status;
  const unexpected5xx = status >= 500 && !contractFiveHundreds(sent.path).has(status);
  if (unexpected5xx) problems.push(`unexpected ${status}`);
  if (!allowedStatuses(sent.method, sent.path).has(status))
    problems.push(`status ${status} not allowed for ${sent.method} ${endpointOf(sent.path)}`);
  if (status >= 400 && sent.method !== "HEAD") {
    if (!(res.headers.get("content-type") ?? "").startsWith("application/json"))
      problems.push("error without JSON content type");
    try {
      const parsed: unknown = JSON.parse(body);
      const envelope = ErrorResponseSchema.safeParse(parsed);
      if (!envelope.success) problems.push(`not the error envelope: ${body.slice(0, 200)}`);
    } catch {
      problems.push(`error body is not JSON: ${body.slice(0, 200)}`);
    }
  }
  if ((status === 304 || sent.method === "HEAD") && body !== "")
    problems.push(`${status} to ${sent.method} has a body`);
  if (status === 405) {
    const allow = (res.headers.get("allow") ?? "").split(",").map((m) => m.trim());
    if (allow.length === 0 || allow[0] === "") problems.push("405 without Allow");
    if (allow.includes(sent.method.toUpperCase())) problems.push(`405 for ${sent.method} whose Allow lists it`);
  }
  if (!res.headers.get("x-request-id")) problems.push("no X-Request-Id");
  if (res.headers.get("x-content-type-options") !== "nosniff") problems.push("no nosniff");
  const routeMissing = status === 404 && body.includes('"route_not_found"');
  if (
    PRIVATE.has(endpointOf(sent.path)) &&
    sent.method !== "OPTIONS" &&
    !routeMissing &&
    res.headers.get("cache-control") !== "no-store"
  ) {
    problems.push(`private answer ${status} without no-store`);
  }
  if (res.headers.has("access-control-allow-credentials")) problems.push("Access-Control-Allow-Credentials sent");
  const allowOrigin = res.headers.get("access-control-allow-origin");
  if (allowOrigin !== null && allowOrigin !== "*" && !(allowOrigin === sent.origin && originAllowed(allowOrigin))) {
    problems.push(`CORS echoed ${allowOrigin}`);
  }
  const headerText = JSON.stringify([...res.headers]);
  for (const finding of scanner.findings(`${body}\n${headerText}`)) problems.push(finding);
  return { status, problems, unexpected5xx, body };
}

/** The ALLOWED_ORIGINS `npm run dev` passes (src/cli/dev.ts), restated as an oracle. */
export function originAllowedInDev(origin: string): boolean {
  return /^http:\/\/(localhost|127\.0\.0\.1):\d{1,5}$/.test(origin);
}
