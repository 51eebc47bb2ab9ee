// Loading data for a page: the value, the error (an ApiError with the request id), and a way to load it again.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api.ts";

export interface Resource<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => Promise<void>;
}

export const asApiError = (error: unknown): ApiError =>
  error instanceof ApiError ? error : new ApiError(0, "client_error", String(error), null, undefined, null);

export function useResource<T>(load: () => Promise<T>, deps: unknown[]): Resource<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, loading: true }));
    try {
      const data = await load();
      if (mine === generation.current) setState({ data, loading: false });
    } catch (error) {
      if (mine === generation.current)
        setState((previous) => ({ ...previous, error: asApiError(error), loading: false }));
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Runs an action (a button's), keeping its pending state and its error for display. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const run = async (...args: A): Promise<R | undefined> => {
    setPending(true);
    setError(undefined);
    try {
      return await action(...args);
    } catch (caught) {
      setError(asApiError(caught));
      return undefined;
    } finally {
      setPending(false);
    }
  };
  return { run, pending, error, clearError: () => setError(undefined) };
}

/**
 * The error a page shows of its loads and actions, the first that has one, with its dismiss handler: an action's error
 * can be dismissed (the page is as it was), a load's cannot (there is nothing to show instead; it goes when the load
 * succeeds again).
 */
export function shownError(...sources: { error: ApiError | undefined; clearError?: () => void }[]): {
  error: ApiError | undefined;
  onDismiss: (() => void) | undefined;
} {
  const source = sources.find((candidate) => candidate.error !== undefined);
  return { error: source?.error, onDismiss: source?.clearError };
}

/** Calls `tick` every `ms` while `active`. */
export function useInterval(tick: () => void, ms: number, active = true): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => saved.current(), ms);
    return () => clearInterval(timer);
  }, [ms, active]);
}
