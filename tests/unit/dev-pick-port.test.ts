import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pickPort, parsePortFlag } from '../../cli/dev/pick-port.ts';
import { CliError } from '../../cli/errors.ts';

let held: Server | undefined;
afterEach(() => {
  held?.close();
  held = undefined;
});

async function holdPort(): Promise<number> {
  held = createServer();
  await new Promise<void>((done) => held!.listen(0, '127.0.0.1', done));
  const address = held.address();
  return typeof address === 'object' && address ? address.port : 0;
}

describe("dev's ports", () => {
  it('gives way to a free port when its default is taken, and says which was taken', async () => {
    const taken = await holdPort();
    const choice = await pickPort({ preferred: taken, flag: 'port', host: '127.0.0.1' });
    expect(choice.taken).toBe(taken);
    expect(choice.port).not.toBe(taken);
    expect(choice.port).toBeGreaterThan(0);
  });

  it('refuses a port named with a flag that is taken: E_PORT_IN_USE, exit 3, naming the port and the flag', async () => {
    const taken = await holdPort();
    const refused = await pickPort({ requested: taken, preferred: 8787, flag: 'site-port', host: '127.0.0.1' }).catch((error) => error);
    expect(refused).toBeInstanceOf(CliError);
    expect(refused).toMatchObject({ code: 'E_PORT_IN_USE', exitCode: 3 });
    expect((refused as CliError).message).toBe(`port ${taken} is in use: choose another with --site-port`);
  });

  it('takes a free default port as it is', async () => {
    const free = await holdPort();
    held!.close();
    held = undefined;
    expect(await pickPort({ preferred: free, flag: 'port', host: '127.0.0.1' })).toEqual({ port: free });
  });

  it.each(['http', '-1', '65536', '80.5'])('refuses --port %s as E_ARGUMENT', (value) => {
    expect(() => parsePortFlag('port', value)).toThrow(expect.objectContaining({ code: 'E_ARGUMENT' }));
  });
});
