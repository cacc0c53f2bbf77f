-- A style's price in this store (issue 13): integer minor units (分 / cents) of the store's currency
-- (KioskConfig.currency, default CNY), never a float. NULL: the store set no price, and customers see none.
-- The price is the store's own setting, also for a style HQ owns: core/sync never writes this column, so a
-- sync cannot wipe it. Bounded here too, so a hand-edited row cannot hold a negative or absurd price.

ALTER TABLE style ADD COLUMN price_minor INTEGER CHECK (price_minor IS NULL OR (price_minor >= 0 AND price_minor <= 99999999));
