-- An A/B campaign's winner sent to the rest of the audience (the holdout's buckets) is a run of
-- its own; this names the variant it sent, so a campaign's winner goes out once.
ALTER TABLE runs ADD COLUMN rollout_variant text;
