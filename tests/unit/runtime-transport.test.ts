// @vitest-environment happy-dom
// Transport of spec section 7 and its two errors of section 8.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { beacon, get, jsonp, postForm } from '../../runtime/transport.ts';

afterEach(() => {
  vi.unstubAllGlobals();
  document.head.innerHTML = '';
});

/** fetch answering every request with `body`; records the URLs asked for. */
function replyWith(body: string) {
  const urls: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      urls.push(url);
      return new Response(body, { status: 200 });
    }),
  );
  return urls;
}

describe('transport', () => {
  it('POSTs a form body and resolves the JSON reply', async () => {
    const fetchMock = vi.fn(async () => new Response('{"status":"success","subscriberId":"s1"}'));
    vi.stubGlobal('fetch', fetchMock);
    await expect(
      postForm('https://sync.test/syncSubscriptionAction.php', { action: 'insert', subscription: '{"a":1}', skipped: undefined }),
    ).resolves.toEqual({
      status: 'success',
      subscriberId: 's1',
    });
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('https://sync.test/syncSubscriptionAction.php');
    expect(init.method).toBe('POST');
    expect((init.headers as Record<string, string>)['content-type']).toBe('application/x-www-form-urlencoded');
    expect(init.body).toBe('action=insert&subscription=%7B%22a%22%3A1%7D');
  });

  it('GETs with a query string (undefined values left out), an empty body is null, an HTTP error rejects', async () => {
    const fetchMock = vi.fn(async (_url: string) => new Response(''));
    vi.stubGlobal('fetch', fetchMock);
    await expect(get('https://services.test/as', { id: 'x', 'subscriber_list[]': 'a', customTag: undefined })).resolves.toBeNull();
    expect(fetchMock.mock.calls[0]![0]).toBe('https://services.test/as?id=x&subscriber_list%5B%5D=a');
    fetchMock.mockResolvedValueOnce(new Response('down', { status: 503 }));
    await expect(get('https://services.test/as', {})).rejects.toThrow('HTTP 503');
  });

  it('"No Transport exists" without fetch (every browser that runs push.js has it: only a page that removed it has none)', async () => {
    vi.stubGlobal('fetch', undefined);
    await expect(postForm('https://sync.test/x', {})).rejects.toThrow('No Transport exists');
    await expect(get('https://sync.test/x', {})).rejects.toThrow('No Transport exists');
  });

  it('JSONP: names the pushkit.cb callback and reads the JSON its call carries, as text: no script element runs', async () => {
    const urls = replyWith('/**/ pushkit.cb({"status":"success","tags":{"plan":"pro"}});');
    const scriptsBefore = document.scripts.length;
    await expect(jsonp('https://services.test/dyn', { hash: 'h' })).resolves.toEqual({ status: 'success', tags: { plan: 'pro' } });
    expect(new URL(urls[0]!).searchParams.get('callback')).toBe('pushkit.cb');
    expect(document.scripts.length).toBe(scriptsBefore);
  });

  it.each([
    ['plain JSON', '{"status":"success"}'],
    ['another callback', 'evil({"status":"success"});'],
    ['nothing', ''],
  ])('JSONP: a reply without the callback (%s) rejects with "callback was not called"', async (_, body) => {
    replyWith(body);
    await expect(jsonp('https://services.test/dyn', { hash: 'h' })).rejects.toThrow('callback was not called');
  });

  it('JSONP: a call with code after it is refused, not run', async () => {
    replyWith('pushkit.cb({});alert(1)');
    await expect(jsonp('https://services.test/dyn', {})).rejects.toThrow(SyntaxError);
  });

  it('the sync (a POST naming the callback) reads its JSONP reply the same way', async () => {
    replyWith('/**/ pushkit.cb({"status":"success","subscriberId":"s-1"});');
    await expect(postForm('https://sync.test/syncSubscriptionAction.php', { action: 'insert', callback: 'pushkit.cb' })).resolves.toEqual({
      status: 'success',
      subscriberId: 's-1',
    });
  });

  it('beacon: an image request with the query', () => {
    const sources: string[] = [];
    vi.stubGlobal(
      'Image',
      class {
        set src(value: string) {
          sources.push(value);
        }
      },
    );
    beacon('https://sync.test/c.gif', { hash: 'h', action: 'add-segment' });
    expect(sources).toEqual(['https://sync.test/c.gif?hash=h&action=add-segment']);
  });
});
