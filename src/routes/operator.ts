import { Hono } from "hono";
import type { AppEnv } from "../http/app-env.ts";

/** Placeholder: filled in by the issue that owns this resource. */
export const operator = new Hono<AppEnv>();
