-- Identity additions: TOTP replay protection (RFC 6238 §5.2: an accepted code must not be accepted again).
-- totp_last_step is the last time step (Unix seconds / 30) whose code was accepted for the user; a code is valid
-- only for a later step. Cleared with the secret when 2FA is disabled.
ALTER TABLE users ADD COLUMN totp_last_step bigint;
