import type { KeyBackend } from './key-backend.ts';
import type { ApiKeyRecord, CreatedKey, KeyCheck, KeySettings, KeyStore } from './key-store.ts';

/** SQLite's KeyBackend: KeyStore's synchronous calls (one local file, microseconds each) behind the async interface. */
export class SqliteKeyBackend implements KeyBackend {
  readonly store: KeyStore;

  constructor(store: KeyStore) {
    this.store = store;
  }

  check(secret: string): KeyCheck {
    return this.store.check(secret);
  }

  nameOf(id: string): string | null {
    return this.store.get(id)?.name ?? null;
  }

  async create(options: { name: string } & KeySettings): Promise<CreatedKey> {
    return this.store.create(options);
  }

  async createIfNone(options: { name: string } & KeySettings): Promise<CreatedKey | null> {
    return this.store.count() === 0 ? this.store.create(options) : null;
  }

  async update(id: string, settings: KeySettings & { name?: string }): Promise<ApiKeyRecord | undefined> {
    return this.store.update(id, settings);
  }

  async rotate(id: string): Promise<CreatedKey | undefined> {
    return this.store.rotate(id);
  }

  async revoke(id: string): Promise<boolean> {
    return this.store.revoke(id);
  }

  async list(): Promise<ApiKeyRecord[]> {
    return this.store.list();
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    return this.store.get(id);
  }

  async count(): Promise<number> {
    return this.store.count();
  }

  async close(): Promise<void> {}
}
