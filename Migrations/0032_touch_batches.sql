-- The frequency caps' memory, written once per claimed batch instead of once per device.
--
-- 0031 kept a row per device (`device_touches`) and appended each message to it: a row version,
-- its WAL and its vacuum per message, which cost PostgreSQL 9 to 13 µs of CPU per message. A
-- streamed run claims its audience as ranges of tokens in token order, so a batch's messages are
-- one row here: the range of tokens it covers, and the 64-bit hashes of the devices it admitted
-- (hashtextextended(token, 0)). A device's history is the rows whose range holds its token and
-- whose keys hold its hash: found through the range's GiST index, a few rows per recent run.
-- Requests planned as rows (spreads, recipient time, one-call sends) are claimed in no token
-- order, so each of their messages keeps a row of its own, a range of one token.
--
-- Claims take turns on an advisory lock while they read and write here (DeviceTouchStore), so
-- two instances never both take a device's last message of a window.
CREATE TYPE token_range AS RANGE (subtype = text);

CREATE TABLE touch_batches (
    run      uuid        NOT NULL,
    at       timestamptz NOT NULL DEFAULT now(),
    -- The campaign's category; NULL for a campaign without one.
    category text,
    tokens   token_range NOT NULL,
    keys     bigint[]    NOT NULL
-- A batch's keys (2 KB for 256 devices) stay in the row, neither compressed (hashes do not
-- compress) nor moved out to TOAST, so that reading a batch back reads one page.
) WITH (toast_tuple_target = 8160);
-- No statistics of the keys: ANALYZE would count the most common of millions of hashes, each
-- time the table grew a tenth, for a planner that never filters on them.
ALTER TABLE touch_batches ALTER COLUMN keys SET STATISTICS 0;
CREATE INDEX touch_batches_tokens ON touch_batches USING gist (tokens);

-- What 0031 counted so far, a row per message of each device still registered (only the hash of
-- a token was kept: a device deleted since is forgotten, as deleting it forgot it then).
INSERT INTO touch_batches (run, at, category, tokens, keys)
SELECT m.run, m.at, m.category, token_range(d.token, d.token, '[]'), ARRAY[t.key]
FROM device_touches t
JOIN devices d ON hashtextextended(d.token, 0) = t.key
CROSS JOIN LATERAL unnest(t.at, t.category, t.run) AS m(at, category, run);

DROP TABLE device_touches;
