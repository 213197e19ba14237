-- Forgetting a device (DELETE /api/v1/devices/{token}, DeviceErasure.swift) finds each row that
-- names it through an index, so that an erasure costs the same whatever the size of the tables it
-- reads: campaigns and runs by their lists of tokens (one-call sends make a campaign and a run
-- each), the answers kept for Idempotency-Keys by their tokens and recipients, webhook
-- deliveries by the device an event names (`data.device`: `device.invalidated`, the journey
-- events), the audit log by the device an entry is about, and the positions in token order that
-- batches keep. A run keeps its position only while it reads its audience (found by
-- `runs_planning`; no index of its own, which would make every claim's update of it write every
-- index of `runs`): a finished run's is cleared.
CREATE INDEX campaigns_listed_tokens ON campaigns USING gin ((content -> 'tokens')) WHERE content ? 'tokens';
CREATE INDEX campaigns_approved_tokens ON campaigns USING gin ((approved_content -> 'tokens')) WHERE approved_content ? 'tokens';
CREATE INDEX runs_listed_tokens ON runs USING gin ((content -> 'tokens')) WHERE content ? 'tokens';
CREATE INDEX runs_audience_tokens ON runs USING gin ((audience -> 'tokens')) WHERE audience ? 'tokens';
CREATE INDEX idempotency_keys_tokens ON idempotency_keys USING gin ((response -> 'tokens')) WHERE response ? 'tokens';
CREATE INDEX idempotency_keys_recipients ON idempotency_keys USING gin ((response -> 'recipients') jsonb_path_ops) WHERE response ? 'recipients';
CREATE INDEX webhook_deliveries_devices ON webhook_deliveries
    ((coalesce(body::jsonb #>> '{data,device,token}', body::jsonb #>> '{data,device,fid}')));
CREATE INDEX audit_log_devices ON audit_log (object_id) WHERE object_type = 'device';
CREATE INDEX device_batches_tokens ON device_batches USING gin (tokens) WHERE tokens IS NOT NULL;
CREATE INDEX device_batches_after ON device_batches (after_token) WHERE after_token IS NOT NULL;
CREATE INDEX device_batches_last ON device_batches (last_token) WHERE last_token IS NOT NULL;
UPDATE runs SET plan_after = NULL WHERE NOT planning AND plan_after IS NOT NULL;
