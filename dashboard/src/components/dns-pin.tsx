// The DNS pin of a proxy's upstream host (the address the gateway connects to) and the re-resolve action, shared by
// the MCP and LLM detail pages. The API answers the new pin, or its own message when the host now resolves somewhere
// it refuses (the old pin is kept then).
import { useState } from 'preact/hooks';
import type { ApiResult, ResponseOf } from '@tollgate/contract';
import { failure } from '../api.ts';
import { Button, ErrorLine } from './form.tsx';

export type Pin = ResponseOf<'POST /api/mcp/:id/re-resolve'>['pin'];

export function DnsPin(p: { pin: Pin | undefined; reResolve: () => Promise<ApiResult<{ pin: Pin }>> }) {
  const [pin, setPin] = useState(p.pin);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [done, setDone] = useState(false);
  async function run() {
    setBusy(true);
    setDone(false);
    const r = await p.reResolve();
    setBusy(false);
    setError(failure(r));
    if (r.ok) {
      setPin(r.body.pin);
      setDone(true);
    }
  }
  return (
    <div class="pin">
      <p>
        <span class="label">DNS pin: </span>
        {pin ? <code data-testid="pin">{pin.hostname} → {pin.ip}:{pin.port}</code> : <span class="muted" data-testid="pin">none yet</span>}
      </p>
      <div class="row">
        <Button class="secondary" busy={busy} onClick={run}>Re-resolve DNS</Button>
        {done && <span class="ok" role="status">Resolved again.</span>}
      </div>
      <ErrorLine message={error} />
    </div>
  );
}
