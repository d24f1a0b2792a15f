// The event-type filter's choices: the catalog of docs/audit-events.md, with the outcome groups first (an ip_acl
// block is `ip_blocked`, a rate limit `rate_limited`: "every denial" is what a person looking for blocks means).
export interface Choice { value: string; label: string }

export const EVENT_CHOICES: Choice[] = [
  { value: '', label: 'All events' },
  { value: 'deny,block,ip_blocked,ip_banned,rate_limited', label: 'Every denial' },
  { value: 'error,lambda_error', label: 'Every error' },
  ...['allow', 'deny', 'ip_blocked', 'ip_banned', 'rate_limited', 'error', 'lambda_error', 'rate_limit_dryrun', 'dlp_match',
    'prompt_guard_hit', 'stream_error', 'budget_exceeded', 'pin_rejected', 'api_request'].map((t) => ({ value: t, label: t })),
];

/** The choices, plus the current value when a link carries a list not offered here. */
export function choicesWith(current: string | undefined): Choice[] {
  if (!current || EVENT_CHOICES.some((c) => c.value === current)) return EVENT_CHOICES;
  return [...EVENT_CHOICES, { value: current, label: current }];
}
