-- What FCM says it did with the messages, from its Data API: one row per day (as FCM dates it),
-- Android app and analytics label, replaced whenever it is read again (a day's figures fill in
-- for up to a day). Only Android devices that share usage and diagnostics data are counted.
CREATE TABLE delivery_data (
    day            date        NOT NULL,
    app_id         text        NOT NULL,
    label          text        NOT NULL,
    accepted       bigint      NOT NULL,
    notifications  bigint      NOT NULL,
    -- messageOutcomePercents as FCM gave them: {"delivered": 91.5, "pending": 3.2, …}
    outcomes       jsonb       NOT NULL,
    fetched_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (day, app_id, label)
);
CREATE INDEX delivery_data_label ON delivery_data (label);
