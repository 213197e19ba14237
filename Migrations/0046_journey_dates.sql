-- Journeys entered when a date property comes due ("renewal_date" minus 3 days at 10:00 in the
-- device's zone): each device's next such moment per live journey, written when the journey is
-- published and as devices are registered, updated or imported; the journeys service enters the
-- devices whose moment came, along (journey_id, due_at), and deletes their rows.
ALTER TABLE journeys ADD COLUMN entry_date text;
CREATE INDEX journeys_entry_date ON journeys (id) WHERE status = 'live' AND entry_date IS NOT NULL;

CREATE TABLE journey_dates (
    journey_id   uuid        NOT NULL REFERENCES journeys (id) ON DELETE CASCADE,
    device_token text        NOT NULL,
    due_at       timestamptz NOT NULL,
    PRIMARY KEY (journey_id, device_token)
);
CREATE INDEX journey_dates_due ON journey_dates (journey_id, due_at);
-- Erasure and re-registration find a device's rows by its token.
CREATE INDEX journey_dates_device ON journey_dates (device_token);
