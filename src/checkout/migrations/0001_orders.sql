-- Orders, written once per checkout by its completion (src/checkout/orders.ts). Append-only:
-- never edit a shipped migration, add the next number. Applied by `npm run dev`, by the tests
-- (vitest.config.ts reads this folder) and on deploy by `wrangler d1 migrations apply
-- storefront-orders --remote`.
CREATE TABLE orders (
  id TEXT PRIMARY KEY,
  -- One order per checkout, whatever completes it and however often: the uniqueness that makes
  -- a repeated or concurrent completion find the order instead of making a second one.
  checkout_id TEXT NOT NULL UNIQUE,
  currency TEXT NOT NULL,
  subtotal_minor INTEGER NOT NULL CHECK (subtotal_minor >= 0),
  total_quantity INTEGER NOT NULL CHECK (total_quantity >= 1),
  note TEXT,
  attributes TEXT NOT NULL DEFAULT '{}',
  payment_reference TEXT NOT NULL,
  -- operator | webhook | stripe: which surface completed the checkout.
  completed_by TEXT NOT NULL,
  -- 1 when a late completion found less stock than the order holds (see order_lines.oversold_quantity).
  oversold INTEGER NOT NULL DEFAULT 0 CHECK (oversold IN (0, 1)),
  checkout_created_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);

-- Newest first, and ?since=: the operator's list walks this index.
CREATE INDEX orders_by_created ON orders (created_at DESC, id DESC);

CREATE TABLE order_lines (
  order_id TEXT NOT NULL REFERENCES orders (id),
  position INTEGER NOT NULL,
  line_id TEXT NOT NULL,
  variant_id TEXT NOT NULL,
  handle TEXT NOT NULL,
  title TEXT NOT NULL,
  variant_title TEXT NOT NULL,
  quantity INTEGER NOT NULL CHECK (quantity >= 1),
  unit_price_minor INTEGER NOT NULL CHECK (unit_price_minor >= 0),
  attributes TEXT NOT NULL DEFAULT '{}',
  -- 1 when stock no longer covered this line's units when the order was made (a late completion).
  oversold INTEGER NOT NULL DEFAULT 0 CHECK (oversold IN (0, 1)),
  PRIMARY KEY (order_id, position)
);

CREATE INDEX order_lines_by_variant ON order_lines (variant_id);
