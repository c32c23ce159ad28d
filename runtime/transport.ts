// HTTP calls of spec section 7: GET, POST with a form body, JSONP and the image beacon.
import type { QueryParams } from './services.ts';

/** The parameters as a query string; undefined ones are left out. */
export const queryString = (params: QueryParams): string => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.append(key, String(value));
  return search.toString();
};

const withQuery = (url: string, params: QueryParams): string => {
  const query = queryString(params);
  return query ? url + (url.includes('?') ? '&' : '?') + query : url;
};

/**
 * The callback every JSONP call of push.js names (the sync of spec section 7, /dyn). The reply is fetched and
 * read as text, never run: no script element, nothing for a CSP to allow, and an answer that is not a call of
 * this name is refused ("jsonp reply without the callback", spec section 8).
 */
export const JSONP_CALLBACK = 'pushkit.cb';
const JSONP_REPLY = /^\s*(?:\/\*\*\/)?\s*pushkit\.cb\s*\(([\s\S]*)\)\s*;?\s*$/;

/** A reply body as JSON (an empty body is null), or, when `jsonp`, the JSON its callback call carries. */
export const parseReply = (text: string, jsonp?: boolean): unknown => {
  if (jsonp) {
    const call = JSONP_REPLY.exec(text);
    if (!call) throw new Error('jsonp callback was not called');
    text = call[1]!;
  }
  return text.trim() ? JSON.parse(text) : null;
};

function request(method: 'GET' | 'POST', url: string, params: QueryParams, body?: string): Promise<unknown> {
  // Every browser that runs push.js (ES2017: async functions) has fetch: only a page that removed it has none.
  if (typeof fetch !== 'function') return Promise.reject(new Error('No Transport exists'));
  const headers = body === undefined ? undefined : { 'content-type': 'application/x-www-form-urlencoded' };
  return fetch(url, { method, body, headers }).then(async (response) => {
    if (!response.ok) throw new Error('HTTP ' + response.status + ' from ' + url);
    return parseReply(await response.text(), params.callback === JSONP_CALLBACK);
  });
}

export const get = (url: string, params: QueryParams): Promise<unknown> => request('GET', withQuery(url, params), params);

export const postForm = (url: string, params: QueryParams): Promise<unknown> => request('POST', url, params, queryString(params));

/** A JSONP GET, read as text (see JSONP_CALLBACK). */
export const jsonp = (url: string, params: QueryParams): Promise<unknown> =>
  get(url, Object.assign({}, params, { callback: JSONP_CALLBACK }));

export function beacon(url: string, params: QueryParams): void {
  new Image().src = withQuery(url, params);
}

/** The transport as RuntimeServices carries it (the lifecycle chunk's and the child window's). */
export const transport = { get_: get, jsonp_: jsonp, postForm_: postForm, beacon_: beacon };
