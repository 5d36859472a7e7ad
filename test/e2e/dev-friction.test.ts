import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { signatureHeader } from "../../src/checkout/signature.ts";
import { DEV_DEFAULTS, describeSources, devVars, varArgs } from "../../src/cli/dev-vars.ts";
import { runCli } from "../helpers/cli.ts";
import { type DevServer, runDevServer } from "../helpers/dev-server.ts";
import { firstFreePort } from "../helpers/ports.ts";

/**
 * Issue 42, points 13 and 14: what a new storefront developer met running the tools locally.
 * 13: every operator command finds the dev server of its state on any port (the e2e server runs
 * on 8810-8812 with its own --persist-to state). 14: `.dev.vars` and the environment reach
 * `npm run dev` over its fixed development defaults.
 */
const base = inject("e2eBaseUrl");
const stateDir = inject("e2eStateDir");

describe("operator commands find the running dev server of their state, on any port (point 13)", () => {
  it("npm run orders -- list, with no flags and with --persist-to, talks to it (it ignored the port)", async () => {
    for (const args of [["list"], ["list", "--persist-to", stateDir]]) {
      const run = await runCli("orders", args, { env: { PORT: "" } });
      expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
      expect(run.stderr).not.toContain("starting wrangler dev");
    }
  });

  it("npm run stock -- show with no id shows the live version's stock status, as its help says", async () => {
    const run = await runCli("stock", ["show"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Catalog \S+: \d+ tracked variants?; /);
    expect(run.stderr).not.toContain("starting wrangler dev");
  });

  it("npm run catalog:rollback -- --list without --persist-to reads the running server's state, not the default one", async () => {
    const plain = await runCli("catalog-rollback", ["--list"]);
    const named = await runCli("catalog-rollback", ["--list", "--persist-to", stateDir]);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain("publish");
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe(named.stdout);
  });

  it("the server answering is the e2e server (the record names its port)", async () => {
    const run = await runCli("token", ["list"]);
    expect(run.code, run.stderr).toBe(0);
    expect(new URL(base).port).not.toBe("8787");
  });
});

describe("npm run dev honours .dev.vars and the environment over its defaults (point 14)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "storefront-devvars-"));
    await symlink(resolve("src"), join(dir, "src"));
    await symlink(resolve("wrangler.toml"), join(dir, "wrangler.toml"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("takes every name of .dev.vars, the environment over it for any name the worker reads, the defaults under both", async () => {
    await writeFile(
      join(dir, ".dev.vars"),
      'STRIPE_WEBHOOK_SECRET="whsec_from_file"\nCART_TOKEN_SECRET_PREVIOUS=previous-secret-0123456789abcdefghij\nOPERATOR_SECRET=file-operator\n',
    );
    const { values, sources } = devVars(dir, {
      OPERATOR_SECRET: "env-operator",
      CHECKOUT_URL: "https://pay.example/{checkout_id}",
      PATH: "/usr/bin",
      CATALOG: "not a binding's value",
    });
    expect(values).toMatchObject({
      STRIPE_WEBHOOK_SECRET: "whsec_from_file",
      CART_TOKEN_SECRET_PREVIOUS: "previous-secret-0123456789abcdefghij",
      OPERATOR_SECRET: "env-operator",
      CHECKOUT_URL: "https://pay.example/{checkout_id}",
      ENVIRONMENT: "development",
      CART_TOKEN_SECRET: DEV_DEFAULTS.CART_TOKEN_SECRET,
      ORDER_WEBHOOK_SECRET: "dev-order-webhook-secret",
    });
    expect(values).not.toHaveProperty("PATH");
    expect(values).not.toHaveProperty("CATALOG");
    expect(sources).toMatchObject({ STRIPE_WEBHOOK_SECRET: ".dev.vars", OPERATOR_SECRET: "environment" });
    const said = describeSources(sources) ?? "";
    expect(said).toContain("STRIPE_WEBHOOK_SECRET");
    expect(said).not.toContain("whsec_from_file");
    expect(varArgs({ A: "x:y" })).toEqual(["--var", "A:x:y"]);
  });

  it("reads .env when there is no .dev.vars, as wrangler does", async () => {
    await rm(join(dir, ".dev.vars"));
    await writeFile(join(dir, ".env"), "STRIPE_WEBHOOK_SECRET=whsec_from_env_file\n");
    expect(devVars(dir, {}).values.STRIPE_WEBHOOK_SECRET).toBe("whsec_from_env_file");
    await rm(join(dir, ".env"));
    expect(devVars(dir, {}).values.STRIPE_WEBHOOK_SECRET).toBe(DEV_DEFAULTS.STRIPE_WEBHOOK_SECRET);
  });

  it("passes the payment and order-event settings from the environment, as npm run dev did before .dev.vars", () => {
    // The payment branch passed these names by a list of its own; the general mechanism must find
    // each one the worker reads (STRIPE_SECRET_KEY is a secret wrangler.toml never names).
    const payment = {
      PAYMENT_PROVIDER: "stripe",
      STRIPE_API_BASE: "http://127.0.0.1:12111",
      STRIPE_SECRET_KEY: "sk_test_local_0123456789",
      STRIPE_TIMEOUT_MS: "2000",
      ORDER_WEBHOOK_URL: "http://127.0.0.1:9000/hook",
      ORDER_WEBHOOK_RETRY_SECONDS: "1",
    };
    const { values, sources } = devVars(dir, payment);
    expect(values).toMatchObject(payment);
    for (const name of Object.keys(payment)) expect(sources[name], name).toBe("environment");
    // And their development secrets stay the defaults (contract 9.1, 10.6, 10.7).
    expect(values).toMatchObject({
      STRIPE_WEBHOOK_SECRET: "whsec_dev_0123456789abcdef",
      ORDER_WEBHOOK_SECRET: "dev-order-webhook-secret",
      CHECKOUT_WEBHOOK_SECRET: "dev-checkout-webhook-secret",
    });
  });

  describe("a server started with STRIPE_WEBHOOK_SECRET in its environment", () => {
    let server: DevServer;
    let state: string;
    const secret = "whsec_e2e_0123456789abcdefghijklmn";
    beforeAll(async () => {
      state = await mkdtemp(join(tmpdir(), "storefront-devvars-state-"));
      const port = await firstFreePort("127.0.0.1", [8820, 8821, 8822, 8823]);
      server = await runDevServer(state, port, join(state, "dev.log"), { STRIPE_WEBHOOK_SECRET: secret });
    }, 200_000);
    afterAll(async () => {
      await server?.stop();
      await rm(state, { recursive: true, force: true });
    });

    async function stripeEvent(signedWith: string): Promise<number> {
      const body = JSON.stringify({ id: "evt_1", type: "payment_intent.created", data: { object: {} } });
      const res = await fetch(`${server.baseUrl}/api/v1/webhooks/checkouts`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Stripe-Signature": await signatureHeader(signedWith, body) },
        body,
      });
      await res.body?.cancel();
      return res.status;
    }

    it("checks Stripe's signature with it, not the development default", async () => {
      expect(await stripeEvent(secret)).toBe(200);
      expect(await stripeEvent(DEV_DEFAULTS.STRIPE_WEBHOOK_SECRET!)).toBe(400);
    });
  });
});
