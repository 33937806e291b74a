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
      await this.client?.query(`LISTEN ${channel}`);
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
      await this.client?.query(`LISTEN ${channel}`);
    }
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
