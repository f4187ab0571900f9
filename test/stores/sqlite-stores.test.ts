import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStores } from '../../core/app/open-stores.ts';
import { EventHub } from '../../core/events/event-hub.ts';
import { runStoreContract } from './store-contract.ts';

runStoreContract('SQLite', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-stores-'));
  const stores = await openStores({ dataDir, log: () => undefined, events: new EventHub() });
  return {
    stores,
    async cleanup() {
      await stores.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
