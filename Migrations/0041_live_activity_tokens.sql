-- A device's Live Activity push token (iOS, lower-case hex), which Live Activity campaigns send
-- to through FCM's apns.live_activity_token. A nullable column only: the release before this one
-- neither writes nor reads it, and runs beside this one during an upgrade. Erasing a device
-- deletes its row, and the token with it.
ALTER TABLE devices ADD COLUMN live_activity_token text;
