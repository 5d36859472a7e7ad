/** A request init carrying `Authorization: Bearer <token>`; a non-string `body` is sent as JSON. */
export function bearerInit(token: string, init: Omit<RequestInit, "body"> & { body?: unknown } = {}): RequestInit {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${token}`);
  const { body: raw, ...rest } = init;
  if (raw === undefined) return { ...rest, headers };
  if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  return { ...rest, headers, body: typeof raw === "string" ? raw : JSON.stringify(raw) };
}
