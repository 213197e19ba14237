-- FCM reports at most 100 distinct analytics labels a project a day (UTC); later labels go
-- unreported, in the Firebase console too. Each run records the labels it sends here when it
-- starts, so that every instance counts the same day and a campaign set to `auto` labels itself
-- within what is left.
CREATE TABLE label_days (
    day          date        NOT NULL,
    label        text        NOT NULL,
    campaign_id  uuid,
    first_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (day, label)
);
