-- The devices resting at a wait that listens for something, by what they listen for first: an app
-- event's batch asks whether anyone listens for its names at all (most events are listened for by
-- no one), and wakes only the pairs that are. By device alone the wake probed every device of the
-- batch (105 µs a device at a million places).
DROP INDEX journey_states_listening;
CREATE INDEX journey_states_listening ON journey_states (listens, device_token) WHERE status = 'active' AND listens IS NOT NULL;
