-- Orders say what was paid and who bought (contract 10.7): the cost as the checkout froze it, the
-- buyer, the shipping option, what the payment moved and whether that is what the checkout asked
-- for. Orders written before this migration keep a total equal to their subtotal and
-- amount_paid NULL (their payment was never checked). Append-only: add the next number.
ALTER TABLE orders ADD COLUMN discount_total_minor INTEGER NOT NULL DEFAULT 0 CHECK (discount_total_minor >= 0);
-- NULL: no shipping line (nothing shipped, or no shipping rules), as cost.shipping says.
ALTER TABLE orders ADD COLUMN shipping_minor INTEGER CHECK (shipping_minor >= 0);
-- NULL: no tax (no tax rules, mode none, or computed by the payment side).
ALTER TABLE orders ADD COLUMN tax_minor INTEGER CHECK (tax_minor >= 0);
ALTER TABLE orders ADD COLUMN tax_included INTEGER NOT NULL DEFAULT 0 CHECK (tax_included IN (0, 1));
-- NULL only for orders written before this migration: their total is their subtotal.
ALTER TABLE orders ADD COLUMN total_minor INTEGER CHECK (total_minor >= 0);
-- The discounts applied, [{id, title, code, amount_minor}], as the checkout froze them.
ALTER TABLE orders ADD COLUMN discounts TEXT NOT NULL DEFAULT '[]';
-- {email?, country, region?, postal_code?} as the cart carried it, or NULL.
ALTER TABLE orders ADD COLUMN buyer TEXT;
-- {id, title, price_minor} of the selected rate, or NULL.
ALTER TABLE orders ADD COLUMN shipping_option TEXT;
-- What the payment moved, in minor units of amount_paid_currency (which may differ from currency).
ALTER TABLE orders ADD COLUMN amount_paid_minor INTEGER CHECK (amount_paid_minor >= 0);
ALTER TABLE orders ADD COLUMN amount_paid_currency TEXT;
-- paid: the payment moved exactly the total in the order's currency; mismatch: anything else.
ALTER TABLE orders ADD COLUMN payment_status TEXT NOT NULL DEFAULT 'paid' CHECK (payment_status IN ('paid', 'mismatch'));
-- Each line's share of each discount, [{discount_id, amount_minor}].
ALTER TABLE order_lines ADD COLUMN discount_allocations TEXT NOT NULL DEFAULT '[]';

-- orders -- check lists every mismatch: a partial index keeps that read small.
CREATE INDEX orders_mismatched ON orders (created_at) WHERE payment_status = 'mismatch';
