-- Every figure of FCM's Data API, not its outcomes alone: {"messageOutcomePercents": {…},
-- "deliveryPerformancePercents": {…}, "messageInsightPercents": {…},
-- "proxyNotificationInsightPercents": {…}} as FCM gave them. `outcomes` stays, written too, for
-- instances still running the release before this one.
ALTER TABLE delivery_data ADD COLUMN percents jsonb NOT NULL DEFAULT '{}';
UPDATE delivery_data SET percents = jsonb_build_object('messageOutcomePercents', outcomes);
