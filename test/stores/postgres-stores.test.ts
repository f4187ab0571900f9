import { afterAll, beforeAll } from 'vitest';
import { openStores } from '../../core/app/open-stores.ts';
import { EventHub } from '../../core/events/event-hub.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';
import { runStoreContract } from './store-contract.ts';

let cluster: TestPostgres;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.stop());

runStoreContract('PostgreSQL', async () => {
  const stores = await openStores({ dataDir: '/nonexistent', databaseUrl: await cluster.createDatabase(), log: () => undefined, events: new EventHub() });
  return { stores, cleanup: () => stores.close() };
});
