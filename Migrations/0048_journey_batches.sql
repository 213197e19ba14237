-- A journey's send steps write their devices as batches of a streamed run (device_batches, a list
-- of tokens each, no row per device): a place keeps the variant its last message was sent, which
-- a goal reached counts as a conversion of.
ALTER TABLE journey_states ADD COLUMN last_variant text;
