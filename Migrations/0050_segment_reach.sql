-- A saved segment keeps its reach and when it was counted: the campaign list, a campaign's review
-- and the API's reads of campaigns and segments show the kept count (with its age) and never
-- count on the request (30 campaigns on mixed segments made a list of campaigns take 22 s at ten
-- million devices). Saving a segment counts it; the leader counts again those older than a few
-- minutes, a bounded time each pass (SegmentReach.swift).
ALTER TABLE segments ADD COLUMN reach bigint, ADD COLUMN reach_counted_at timestamptz;
CREATE INDEX segments_reach_counted ON segments (reach_counted_at NULLS FIRST);
