import { useEffect, useState, useCallback } from 'preact/hooks';

// useLoad runs load whenever one of deps changes and keeps its outcome:
// {data, error, loading, reload}. An answer that arrives after deps
// changed again is dropped.
export function useLoad(load, deps) {
  const [state, setState] = useState({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error) => live && setState({ data: null, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

// useAction runs a state-changing call on demand and keeps its outcome:
// [{busy, error}, run]. then runs after it, whether it succeeded or not
// (the API's answer says what happened; the page reloads what changed).
export function useAction(call, then) {
  const [state, setState] = useState({ busy: false, error: null });
  const run = async (...args) => {
    setState({ busy: true, error: null });
    let error = null;
    try {
      await call(...args);
    } catch (e) {
      error = e;
    }
    setState({ busy: false, error });
    if (then) then(error);
  };
  return [state, run];
}
