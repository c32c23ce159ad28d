// @vitest-environment happy-dom
// Transport of spec section 7 and its two errors of section 8.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { beacon, get, jsonp, postForm } from '../../runtime/transport.ts';

afterEach(() => {
  vi.unstubAllGlobals();
  document.head.innerHTML = '';
});

/** Makes script elements "load" by running `body` for the callback name the script URL carries. */
function fakeScriptLoading(body: (callback: string, src: URL) => void) {
  const append = vi.spyOn(document.head, 'appendChild').mockImplementation((node) => {
    const script = node as HTMLScriptElement;
    const src = new URL(script.src);
    setTimeout(() => {
      body(src.searchParams.get('callback')!, src);
      script.onload?.(new Event('load'));
    });
    return node;
  });
  return append;
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

  it('GETs with a query string (arrays as name[]), an empty body is null, an HTTP error rejects', async () => {
    const fetchMock = vi.fn(async (_url: string) => new Response(''));
    vi.stubGlobal('fetch', fetchMock);
    await expect(get('https://services.test/as', { id: 'x', subscriber_list: ['a', 'b'] })).resolves.toBeNull();
    expect(fetchMock.mock.calls[0]![0]).toBe('https://services.test/as?id=x&subscriber_list%5B%5D=a&subscriber_list%5B%5D=b');
    fetchMock.mockResolvedValueOnce(new Response('down', { status: 503 }));
    await expect(get('https://services.test/as', {})).rejects.toThrow('HTTP 503');
  });

  it('"No Transport exists" when neither fetch nor XMLHttpRequest exist', async () => {
    vi.stubGlobal('fetch', undefined);
    vi.stubGlobal('XMLHttpRequest', undefined);
    await expect(postForm('https://sync.test/x', {})).rejects.toThrow('No Transport exists');
    await expect(get('https://sync.test/x', {})).rejects.toThrow('No Transport exists');
  });

  it('falls back to XMLHttpRequest without fetch', async () => {
    vi.stubGlobal('fetch', undefined);
    const sent: unknown[] = [];
    vi.stubGlobal(
      'XMLHttpRequest',
      class {
        status = 200;
        responseText = '{"status":"success"}';
        onload?: () => void;
        open(method: string, url: string) {
          sent.push(method, url);
        }
        setRequestHeader() {}
        send(body: string) {
          sent.push(body);
          setTimeout(() => this.onload?.());
        }
      },
    );
    await expect(postForm('https://sync.test/x', { a: 1 })).resolves.toEqual({ status: 'success' });
    expect(sent).toEqual(['POST', 'https://sync.test/x', 'a=1']);
  });

  it('JSONP: a unique callback under pushkit resolves the reply and is removed', async () => {
    const callbacks: string[] = [];
    fakeScriptLoading((callback) => {
      callbacks.push(callback);
      const name = callback.split('.').pop()!;
      (window as unknown as { pushkit: { cb: Record<string, (r: unknown) => void> } }).pushkit.cb[name]!({ result: callback });
    });
    const [first, second] = await Promise.all([
      jsonp('https://services.test/dyn', { hash: 'h' }),
      jsonp('https://services.test/dyn', { hash: 'h' }),
    ]);
    expect(callbacks[0]).toMatch(/^pushkit\.cb\.\w+$/);
    expect(callbacks[0]).not.toBe(callbacks[1]);
    expect(first).toEqual({ result: callbacks[0] });
    expect(second).toEqual({ result: callbacks[1] });
    expect(Object.keys((window as unknown as { pushkit: { cb: object } }).pushkit.cb)).toEqual([]);
  });

  it('JSONP: a script that loads without calling the callback rejects with "callback was not called"', async () => {
    fakeScriptLoading(() => undefined);
    await expect(jsonp('https://services.test/dyn', { hash: 'h' })).rejects.toThrow('callback was not called');
  });

  it('JSONP: a script that never loads rejects after the timeout', async () => {
    vi.useFakeTimers();
    vi.spyOn(document.head, 'appendChild').mockImplementation((node) => node);
    const reply = jsonp('https://services.test/dyn', {});
    vi.advanceTimersByTime(10_000);
    await expect(reply).rejects.toThrow('callback was not called');
    vi.useRealTimers();
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
