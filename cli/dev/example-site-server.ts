// The example site of `push-kit dev` and of the browser tests: static pages with the site's snippet put in
// place of `<!--push-kit snippet-->`, the built bundle at the site root, and a tiny shop (cart form post,
// /cart.js in Shopify's shape, /checkouts/<id> order pages).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ORDER_TOKEN_META } from '../../contract/shop-order.ts';
import { CHUNK_FILE_PATTERN } from '../../emit/bundle.ts';

const SNIPPET_MARKER = '<!--push-kit snippet-->';
/** The bundle's files, served at their default paths and at the ones the site's config names. */
const BUNDLE_FILES: Record<string, string> = {
  '/push.js': 'push.js',
  '/sw.js': 'sw.js',
  '/sw-firefox.js': 'sw-firefox.js',
  '/manifest.json': 'manifest.json',
};
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

export interface ShopProduct {
  variantId: number;
  productId: number;
  title: string;
  priceCents: number;
  sku: string;
  productType: string;
  vendor: string;
  url: string;
}

export const EXAMPLE_PRODUCTS: ShopProduct[] = [
  {
    variantId: 40001,
    productId: 7001,
    title: 'Gold nib pen',
    priceCents: 2450,
    sku: 'GNP-01',
    productType: 'Pens',
    vendor: 'Nib & Ink',
    url: '/products/gold-nib-pen.html',
  },
  {
    variantId: 40002,
    productId: 7002,
    title: 'Iron gall ink',
    priceCents: 1200,
    sku: 'IGI-30',
    productType: 'Inks',
    vendor: 'Nib & Ink',
    url: '/products/iron-gall-ink.html',
  },
];

export interface ExampleSiteOptions {
  /** Folder of the example pages. */
  root: string;
  /** Built site folder (`dist/<name>`): push.js, sw.js, sw-firefox.js, manifest.json, snippet.html. */
  bundleDir: string;
  port: number;
  host?: string;
  /** Called when the shop completes an order, so the provider can answer getOrderDetails for it. */
  /** Stores the order; resolves with the read token the order page carries (contract/shop-order.ts). */
  onOrder?: (orderId: string, order: ShopOrder) => Promise<string | void> | string | void;
  /** Where the site's config puts its workers and manifest (paths on this site; absolute URLs are elsewhere). */
  paths?: { swPath: string; firefoxSwPath: string; manifestUrl: string };
  /**
   * A folder whose files are served where `root` has none, and whose index.html (with the snippet) answers every
   * other page path: `dev` puts its local page on every path of the site, e.g. one its includeUrls name.
   */
  fallbackRoot?: string;
}

export interface RunningExampleSite {
  url: string;
  server: Server;
  close(): Promise<void>;
}

type Cart = Map<number, number>;

/** Spec section 3, "Shop order event data". */
export interface ShopOrder {
  total: number;
  /** ISO 4217: the order's revenue (docs/automations.md#revenue). */
  currency: string;
  shipping: number;
  tax: number;
  discount: number;
  coupon: string;
  items: Array<{
    pId: string;
    pName: string;
    pPrice: number;
    pVariant: string;
    pSku: string;
    pBrand: string;
    pQuant: number;
    pImgUrl: string;
  }>;
}

function cartJson(cart: Cart) {
  const items = [...cart].flatMap(([variantId, quantity]) => {
    const product = EXAMPLE_PRODUCTS.find((candidate) => candidate.variantId === variantId);
    if (!product) return [];
    return [
      {
        id: variantId,
        variant_id: variantId,
        product_id: product.productId,
        title: product.title,
        price: product.priceCents,
        line_price: product.priceCents * quantity,
        sku: product.sku,
        product_type: product.productType,
        vendor: product.vendor,
        url: product.url,
        quantity,
      },
    ];
  });
  return {
    items,
    total_price: items.reduce((sum, item) => sum + item.line_price, 0),
    item_count: items.reduce((sum, item) => sum + item.quantity, 0),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) {
    body += chunk;
    if (body.length > 16_384) throw new Error('body too large');
  }
  return body;
}

function cartIdOf(request: IncomingMessage): string | undefined {
  return /(?:^|;\s*)example_cart=([\w-]+)/.exec(request.headers.cookie ?? '')?.[1];
}

export async function startExampleSite(options: ExampleSiteOptions): Promise<RunningExampleSite> {
  const carts = new Map<string, Cart>();
  /** Each order's read token, put on its order page. */
  const orderTokens = new Map<string, string>();
  const bundleFiles: Record<string, string> = { ...BUNDLE_FILES };
  if (options.paths) {
    const { swPath, firefoxSwPath, manifestUrl } = options.paths;
    for (const [path, file] of [
      [swPath, 'sw.js'],
      [firefoxSwPath, 'sw-firefox.js'],
      [manifestUrl, 'manifest.json'],
    ] as const) {
      // the request path the browser will ask for: no query, percent-decoded (as the lookup below sees it)
      if (!path.startsWith('/')) continue;
      const { pathname } = new URL(path, 'http://site.invalid');
      try {
        bundleFiles[decodeURIComponent(pathname)] = file;
      } catch {
        bundleFiles[pathname] = file;
      }
    }
  }
  // absolute, no trailing separator: the containment check below compares against `root + sep`
  const root = resolve(options.root);
  const fallbackRoot = options.fallbackRoot === undefined ? undefined : resolve(options.fallbackRoot);

  async function serveFile(response: ServerResponse, file: string, status = 200, orderToken?: string): Promise<void> {
    let body: Buffer | string = await readFile(file);
    const type = CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
    if (extname(file) === '.html') {
      const snippet = await readFile(join(options.bundleDir, 'snippet.html'), 'utf8').catch(() => '');
      // the buyer's order page carries the order's read token, as a shop's own order page would
      const meta = orderToken ? `<meta name="${ORDER_TOKEN_META}" content="${orderToken}">` : '';
      body = body.toString('utf8').replace(SNIPPET_MARKER, meta + snippet.trim());
    }
    response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    response.end(body);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://example.invalid');
    const path = decodeURIComponent(url.pathname);
    let cartId = cartIdOf(request);
    if (!cartId || !carts.has(cartId)) {
      cartId = randomUUID();
      carts.set(cartId, new Map());
      response.setHeader('set-cookie', `example_cart=${cartId}; Path=/; SameSite=Lax`);
    }
    const cart = carts.get(cartId)!;

    if (request.method === 'POST' && (path === '/cart/add' || path === '/cart/add.js')) {
      const form = new URLSearchParams(await readBody(request));
      const variantId = Number(form.get('id'));
      const quantity = Math.min(Math.max(Number(form.get('quantity') ?? 1) || 1, 1), 99);
      if (!EXAMPLE_PRODUCTS.some((product) => product.variantId === variantId)) {
        response.writeHead(422, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ status: 422, message: 'Unknown product variant' }));
        return;
      }
      cart.set(variantId, (cart.get(variantId) ?? 0) + quantity);
      if (path.endsWith('.js')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(cartJson(cart)));
      } else {
        const back = request.headers.referer ? new URL(request.headers.referer).pathname : '/cart';
        response.writeHead(303, { location: back });
        response.end();
      }
      return;
    }
    if (path === '/cart.js') {
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      response.end(JSON.stringify(cartJson(cart)));
      return;
    }
    if (request.method === 'POST' && path === '/checkout') {
      const orderId = String(1000 + Math.floor(Math.random() * 9_000_000));
      const summary = cartJson(cart);
      const readToken = await options.onOrder?.(orderId, {
        total: summary.total_price / 100,
        currency: 'USD',
        shipping: 4.5,
        tax: 0,
        discount: 0,
        coupon: '',
        items: summary.items.map((item) => ({
          pId: String(item.product_id),
          pName: item.title,
          pPrice: item.price / 100,
          pVariant: String(item.variant_id),
          pSku: item.sku,
          pBrand: item.vendor,
          pQuant: item.quantity,
          pImgUrl: new URL('/icon.png', `http://${request.headers.host ?? 'localhost'}`).href,
        })),
      });
      if (readToken) orderTokens.set(orderId, readToken);
      cart.clear();
      response.writeHead(303, { location: `/checkouts/${orderId}` });
      response.end();
      return;
    }
    if (path === '/cart') {
      const summary = cartJson(cart);
      const rows = summary.items.map((item) => `<li>${item.quantity} × ${item.title}</li>`).join('');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Cart</title><link rel="stylesheet" href="/styles.css"></head>` +
          `<body><main><h1>Your cart</h1><ul>${rows || '<li>Empty</li>'}</ul>` +
          `<p>Total: $${(summary.total_price / 100).toFixed(2)}</p>` +
          `<form method="post" action="/checkout"><button type="submit">Check out</button></form></main></body></html>`,
      );
      return;
    }
    const order = /^\/checkouts\/([\w-]+)\/?$/.exec(path);
    if (order) return serveFile(response, join(root, 'checkouts', 'order.html'), 200, orderTokens.get(order[1]!));
    if (Object.hasOwn(bundleFiles, path)) return serveFile(response, join(options.bundleDir, bundleFiles[path]!));
    // push.js's chunks, beside it (content-hashed names)
    if (CHUNK_FILE_PATTERN.test(path.slice(1))) return serveFile(response, join(options.bundleDir, path.slice(1)));

    const relative = path.endsWith('/') ? `${path}index.html` : path;
    const notFound = () => {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('Not found');
    };
    const servedFrom = async (folder: string) => {
      const file = normalize(join(folder, relative));
      if (!file.startsWith(folder + sep) || file.endsWith('.json')) return false;
      return serveFile(response, file).then(
        () => true,
        () => false,
      );
    };
    if (await servedFrom(root)) return;
    if (!fallbackRoot) return notFound();
    if (await servedFrom(fallbackRoot)) return;
    // a page path (no file extension, or .html): the fallback page, with the snippet
    if (request.method === 'GET' && /(^|\/)[^./]*(\.html?)?$/.test(path)) return serveFile(response, join(fallbackRoot, 'index.html'));
    notFound();
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: Error) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`Example site error: ${error.message}`);
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${host === '127.0.0.1' ? 'localhost' : host}:${port}`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // A browser's pooled or preconnected socket must not keep the port (and a restart on it) waiting.
        server.closeAllConnections();
      }),
  };
}
