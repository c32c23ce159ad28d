// push-kit/react under server rendering (Next.js app router renders client components on the server too): the
// module imports and <PushKit /> with usePushKit() render with react-dom/server where there is no window or
// document, the hook's server snapshot is 'loading', and the component adds no markup (the script is added
// by its effect, in the browser only).
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { PushKit, usePushKit } from '../../react/index.ts';

function Status() {
  const { readiness, subscriberId, optedOut } = usePushKit();
  return (
    <p>
      {readiness}|{subscriberId ?? 'none'}|{String(optedOut)}
    </p>
  );
}

describe('push-kit/react on the server', () => {
  it('renders the component and the hook with no window: readiness loading, no subscriber, no markup of its own', () => {
    expect(typeof window).toBe('undefined');
    expect(typeof document).toBe('undefined');
    const html = renderToString(
      <main>
        <PushKit src="https://www.example.com/push.js" />
        <Status />
      </main>,
    );
    expect(html).toBe('<main><p>loading<!-- -->|<!-- -->none<!-- -->|<!-- -->false</p></main>');
  });

  it('says which prop is missing when none names push.js', () => {
    expect(() => renderToString(<PushKit />)).toThrow("<PushKit>: give src (the URL of the site's push.js), siteUrl or cdnUrl");
    expect(renderToString(<PushKit cdnUrl="https://cdn.example.com/site/" />)).toBe('');
  });
});
