// undici's connection pool (Agent) and its error classes, without the rest of the package. `import
// ... from 'undici'` runs its index, which loads 109 files (fetch, WebSocket, EventSource, the mock
// agents, the cache stores) that Patchbay never uses: 5.4 MB of live heap and ~170 ms at start,
// against 2.6 MB and ~90 ms for the 22 files Agent and the errors need (node -e, heap after gc()).
// undici has no "exports" map, so these paths are reachable; test/providers/undici-agent.test.ts
// checks they are the very classes the package exports, so an upgrade that moves them fails there.
import { createRequire } from 'node:module';
import type { Agent as AgentClass, errors as ErrorClasses } from 'undici';

const require = createRequire(import.meta.url);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof AgentClass;
export type Agent = AgentClass;
export const undiciErrors = require('undici/lib/core/errors.js') as typeof ErrorClasses;
