import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';

/**
 * Called with the notification's payload ('' when none was given), or with null after the
 * listening connection was lost and opened again: notifications sent meanwhile are gone, so a
 * listener that caches treats everything as changed.
 */
type Listener = (payload: string | null) => void;

/**
 * One dedicated connection LISTENing for work announcements (NOTIFY), so that an instance
 * wakes at once when another one creates or resumes work. Polling remains the fallback:
 * a lost notification only delays work, never loses it; and once the connection is back,
 * every listener hears null, for whatever it missed.
 */
@Injectable()
export class PgNotifications implements OnApplicationShutdown {
  private readonly logger = new Logger(PgNotifications.name);
  private readonly listeners = new Map<string, Set<Listener>>();
  private client: Client | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;
  /**
   * The LISTENs sent so far, one after another: workers subscribe at once when the app starts,
   * and a pg client must not be asked a query while another is running (deprecated in pg 8).
   */
  private listens: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataSource: DataSource) {}

  async subscribe(channel: string, listener: Listener): Promise<void> {
    if (!/^[a-z_]+$/.test(channel)) {
      throw new Error(`invalid channel name ${channel}`);
    }
    const set = this.listeners.get(channel) ?? new Set<Listener>();
    set.add(listener);
    const isNewChannel = !this.listeners.has(channel);
    this.listeners.set(channel, set);
    await this.connect();
    if (isNewChannel) {
      await this.listen(channel);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }

  private connect(): Promise<void> {
    this.connecting ??= this.open();
    return this.connecting;
  }

  private async open(): Promise<void> {
    const options = this.dataSource.options as { url?: string };
    const client = new Client({ connectionString: options.url });
    client.on('notification', (message) => {
      for (const listener of this.listeners.get(message.channel) ?? []) {
        listener(message.payload ?? '');
      }
    });
    client.on('error', (error) => {
      this.logger.warn({ err: error }, 'notification connection lost; reconnecting');
      this.reconnectLater();
    });
    await client.connect();
    this.client = client;
  }

  private async listenAll(): Promise<void> {
    for (const channel of this.listeners.keys()) {
      await this.listen(channel);
    }
  }

  private listen(channel: string): Promise<unknown> {
    const client = this.client;
    const listened = this.listens.then(() => client?.query(`LISTEN ${channel}`));
    // The next LISTEN waits for this one, whether it worked or not.
    this.listens = listened.catch(() => undefined);
    return listened;
  }

  private announceMissed(): void {
    for (const listeners of this.listeners.values()) {
      listeners.forEach((listener) => listener(null));
    }
  }

  private reconnectLater(): void {
    this.client = undefined;
    this.connecting = undefined;
    if (this.closed) {
      return;
    }
    setTimeout(() => {
      void this.connect()
        .then(() => this.listenAll())
        .then(
          () => this.announceMissed(),
          () => this.reconnectLater(),
        );
    }, 1000).unref();
  }
}
