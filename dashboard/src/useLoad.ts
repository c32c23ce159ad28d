import { useCallback, useEffect, useState } from 'react';

/** Runs `load` now and whenever `reload()` is called or a dependency changes; keeps the last good value. */
export function useLoad<T>(load: () => Promise<T>, onError: (error: unknown) => string, deps: unknown[]) {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const run = useCallback(load, deps);
  useEffect(() => {
    let live = true;
    setLoading(true);
    run().then(
      (result) => {
        if (!live) return;
        setValue(result);
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!live) return;
        setError(onError(failure));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [run, generation]);
  return { value, error, loading, reload: () => setGeneration((count) => count + 1) };
}
