import type { Context } from "hono";

/**
 * Sets headers on the response a handler produced, in place. Hono's `c.header()` on a finished
 * response copies the whole Response on every call (it cannot know whether the headers are
 * mutable); this worker's own responses are, so a copy is made only when the runtime refuses the
 * change: a response straight from `fetch`, the Cache API or the static assets binding.
 */
export function setResponseHeaders(c: Context, apply: (headers: Headers) => void): void {
  try {
    apply(c.res.headers);
    return;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  const copy = new Response(c.res.body, c.res);
  apply(copy.headers);
  // Unset first: assigning over a response makes Hono merge the old headers into a second copy.
  c.res = undefined;
  c.res = copy;
}
