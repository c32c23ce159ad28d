// HTTP calls of spec section 7: GET, POST with a form body, JSONP and the image beacon.
import type { QueryParams } from './services.ts';

const JSONP_TIMEOUT_MS = 10000;
let jsonpCount = 0;

export const queryString = (params: QueryParams): string => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) search.append(key + '[]', item);
    else search.append(key, String(value));
  }
  return search.toString();
};

const withQuery = (url: string, params: QueryParams): string => {
  const query = queryString(params);
  return query ? url + (url.includes('?') ? '&' : '?') + query : url;
};

/** A reply body as JSON; an empty body is null. */
const parseReply = (text: string): unknown => (text.trim() ? JSON.parse(text) : null);

function request(method: 'GET' | 'POST', url: string, body?: string): Promise<unknown> {
  const headers = body === undefined ? undefined : { 'content-type': 'application/x-www-form-urlencoded' };
  if (typeof fetch === 'function') {
    return fetch(url, { method, body, headers }).then(async (response) => {
      if (!response.ok) throw new Error('HTTP ' + response.status + ' from ' + url);
      return parseReply(await response.text());
    });
  }
  // Only Safari's legacy push reaches browsers without fetch (Safari 7 to 10).
  if (!PK_FEATURES.safari || typeof XMLHttpRequest !== 'function') return Promise.reject(new Error('No Transport exists'));
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    if (headers) xhr.setRequestHeader('content-type', headers['content-type']);
    xhr.onload = () => {
      try {
        if (xhr.status < 200 || xhr.status > 299) throw new Error('HTTP ' + xhr.status + ' from ' + url);
        resolve(parseReply(xhr.responseText));
      } catch (error) {
        reject(error as Error);
      }
    };
    xhr.onerror = () => reject(new Error('network error from ' + url));
    xhr.send(body);
  });
}

export const get = (url: string, params: QueryParams): Promise<unknown> => request('GET', withQuery(url, params));

export const postForm = (url: string, params: QueryParams): Promise<unknown> => request('POST', url, queryString(params));

/** The registry of pending JSONP callbacks, reachable as `pushkit.cb` so no other global is added. */
const jsonpRegistry = (): Record<string, (reply: unknown) => void> => {
  const host = window as unknown as { pushkit?: { cb?: Record<string, (reply: unknown) => void> } };
  const api = (host.pushkit ??= [] as never);
  return (api.cb ??= {});
};

export function jsonp(url: string, params: QueryParams): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const name = 'c' + ++jsonpCount + Date.now().toString(36);
    const registry = jsonpRegistry();
    const script = document.createElement('script');
    let called = false;
    const done = (): void => {
      delete registry[name];
      clearTimeout(timer);
      script.remove();
    };
    const fail = (): void => {
      done();
      if (!called) reject(new Error('jsonp callback was not called: ' + url));
    };
    const timer = setTimeout(fail, JSONP_TIMEOUT_MS);
    registry[name] = (reply) => {
      called = true;
      done();
      resolve(reply);
    };
    // The script runs before its load event, so a load without the call means the reply had no callback.
    script.onload = fail;
    script.onerror = fail;
    script.src = withQuery(url, Object.assign({}, params, { callback: 'pushkit.cb.' + name }));
    (document.head || document.documentElement).appendChild(script);
  });
}

export function beacon(url: string, params: QueryParams): void {
  new Image().src = withQuery(url, params);
}
