// A fake desktop notification server (org.freedesktop.Notifications) on a private D-Bus session bus. Headless
// Chromium started with DBUS_SESSION_BUS_ADDRESS pointing here shows its notifications through it, and
// emitting ActionInvoked(id, 'default') makes Chromium fire a trusted `notificationclick` in the service
// worker, which no CDP call can do (docs/testing.md).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import dbus from 'dbus-next';

export interface DesktopNotification {
  id: number;
  summary: string;
  body: string;
  actions: string[];
}

export interface FakeNotificationServer {
  /** The bus address to give Chromium as DBUS_SESSION_BUS_ADDRESS. */
  address: string;
  notifications: DesktopNotification[];
  /** What a person clicking the notification (or one of its buttons) makes the desktop send. */
  click(id: number, action?: string): void;
  close(): Promise<void>;
}

async function startBus(dir: string): Promise<{ daemon: ChildProcess; address: string }> {
  const daemon = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1', `--address=unix:path=${join(dir, 'bus')}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('dbus-daemon printed no address in 5 s')), 5000);
    daemon.once('error', (error) => reject(new Error(`dbus-daemon did not start (apt-get install -y dbus): ${error.message}`)));
    createInterface({ input: daemon.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve(line.trim());
    });
  });
  return { daemon, address };
}

export async function startFakeNotificationServer(): Promise<FakeNotificationServer> {
  const dir = await mkdtemp(join(tmpdir(), 'push-kit-dbus-'));
  const { daemon, address } = await startBus(dir);
  const notifications: DesktopNotification[] = [];
  let nextId = 1;

  class Notifications extends dbus.interface.Interface {
    Notify(_app: string, replacesId: number, _icon: string, summary: string, body: string, actions: string[]): number {
      const id = replacesId || nextId++;
      notifications.push({ id, summary, body, actions });
      return id;
    }
    GetCapabilities(): string[] {
      return ['actions', 'body', 'body-hyperlinks', 'body-images', 'icon-static', 'persistence'];
    }
    GetServerInformation(): string[] {
      return ['push-kit fake notifications', 'push-kit', '1.0', '1.2'];
    }
    CloseNotification(id: number): void {
      this.NotificationClosed(id, 3);
    }
    ActionInvoked(id: number, action: string): [number, string] {
      return [id, action];
    }
    NotificationClosed(id: number, reason: number): [number, number] {
      return [id, reason];
    }
  }
  Notifications.configureMembers({
    methods: {
      Notify: { inSignature: 'susssasa{sv}i', outSignature: 'u' },
      GetCapabilities: { outSignature: 'as' },
      GetServerInformation: { outSignature: 'ssss' },
      CloseNotification: { inSignature: 'u' },
    },
    signals: { ActionInvoked: { signature: 'us' }, NotificationClosed: { signature: 'uu' } },
  });
  const service = new Notifications('org.freedesktop.Notifications');
  const bus = dbus.sessionBus({ busAddress: address });
  await bus.requestName('org.freedesktop.Notifications', 0);
  bus.export('/org/freedesktop/Notifications', service);

  return {
    address,
    notifications,
    click(id, action = 'default') {
      service.ActionInvoked(id, action);
    },
    async close() {
      bus.disconnect();
      daemon.kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
