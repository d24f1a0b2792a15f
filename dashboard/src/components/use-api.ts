// One API read per component: its answer or the API's own message, and a reload for after a change.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ApiResult } from '@tollgate/contract';
import { failure } from '../api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload(): Promise<void>;
  /** Replaces the shown answer with a newer one a write returned (no second read). */
  set(data: T): void;
}

export function useApi<T>(read: () => Promise<ApiResult<T>>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  // The caller names what the read depends on (deps), as with useEffect.
  const reload = useCallback(async () => {
    setLoading(true);
    const r = await read();
    setLoading(false);
    if (r.ok) {
      setData(r.body);
      setError(undefined);
    } else {
      setError(failure(r));
    }
  }, deps);
  useEffect(() => { void reload(); }, [reload]);
  return { data, error, loading, reload, set: setData };
}
