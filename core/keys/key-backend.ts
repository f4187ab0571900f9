import type { ApiKeyRecord, CreatedKey, KeyCheck, KeySettings } from './key-store.ts';

/**
 * Patchbay's API keys as the rest of Patchbay sees them. `check` runs on every /v1 request: it
 * reads an in-memory map, no I/O. Writes are asynchronous and resolve once every process sharing
 * the store will honour them (SQLite: one file, noticed by other connections within 100 ms;
 * PostgreSQL: committed, and every replica's map updated through LISTEN/NOTIFY, see
 * PostgresKeyStore). SQLite (SqliteKeyBackend over KeyStore) and PostgreSQL implement it; one
 * contract suite (test/stores/key-contract.ts) runs against each.
 */
export interface KeyBackend {
  check(secret: string): KeyCheck;
  /** The key's name from the in-memory map (live events), null when unknown. */
  nameOf(id: string): string | null;
  create(options: { name: string } & KeySettings): Promise<CreatedKey>;
  /** Creates the key only when there is none at all (the first start); replicas starting together create one. */
  createIfNone(options: { name: string } & KeySettings): Promise<CreatedKey | null>;
  /** A field left undefined keeps its value, null clears it; undefined when no key has that id. */
  update(id: string, settings: KeySettings & { name?: string }): Promise<ApiKeyRecord | undefined>;
  /** A new secret for the same record; the old secret stops working at once. Undefined for unknown or revoked keys. */
  rotate(id: string): Promise<CreatedKey | undefined>;
  /** False when no key has that id; revoking twice is harmless. */
  revoke(id: string): Promise<boolean>;
  list(): Promise<ApiKeyRecord[]>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  count(): Promise<number>;
  close(): Promise<void>;
}
