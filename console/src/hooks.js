import { useEffect, useState, useCallback } from 'preact/hooks';

// useLoad runs load whenever one of deps changes and keeps its outcome:
// {data, error, loading, reload}. An answer that arrives after deps
// changed again is dropped. Until the answer for the current deps is in,
// loading is true (data is still the previous answer, so the page does
// not flicker, but nothing may present it as the answer to the new deps).
export function useLoad(load, deps) {
  const [state, setState] = useState({ data: null, error: null, loading: true, key: null });
  const [tick, setTick] = useState(0);
  const key = JSON.stringify([...deps, tick]);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false, key }),
      (error) => live && setState({ data: null, error, loading: false, key }),
    );
    return () => {
      live = false;
    };
  }, [key]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  const { data, error, loading } = state;
  return { data, error, loading: loading || state.key !== key, reload };
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

// useConfirmed is a state-changing call asked for after a confirmation:
// [step, setStep, run]. step.phase is 'idle', 'confirm' (setStep opens
// it), 'running', or 'done' with the call's answer in step.result; a
// failed call goes back to 'idle' with step.error. then runs after a call
// that succeeded.
export function useConfirmed(call, then) {
  const [step, setStep] = useState({ phase: 'idle' });
  const run = async () => {
    setStep({ phase: 'running' });
    try {
      const result = await call();
      setStep({ phase: 'done', result });
      if (then) then();
    } catch (e) {
      setStep({ phase: 'idle', error: e });
    }
  };
  return [step, setStep, run];
}
