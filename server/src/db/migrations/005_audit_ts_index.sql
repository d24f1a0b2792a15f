-- The retention job deletes by age across all users; without this index it scans the whole table.
CREATE INDEX IF NOT EXISTS audit_events_ts ON audit_events (ts);
