// Nothing of ours may break the host page: what we swallow is logged at debug level, and the API's entry
// points and the page's callbacks run guarded.

/** Logs an error we swallow, for whoever debugs the page. */
export const logSwallowed = (error: unknown): void => console.debug('pushkit', error);

/** Wraps `fn` so that anything it throws (or its promise rejects with) is logged, never thrown. */
export const guard =
  <A extends unknown[]>(fn: (...args: A) => unknown) =>
  (...args: A): void => {
    try {
      const result = fn(...args);
      if (result instanceof Promise) result.catch(logSwallowed);
    } catch (error) {
      logSwallowed(error);
    }
  };

/** Hands `value` to the page's `callback`, if any, guarded; returns `value`. */
export const answer = <T>(value: T, callback?: (value: T) => void): T => {
  if (callback) guard(callback)(value);
  return value;
};
