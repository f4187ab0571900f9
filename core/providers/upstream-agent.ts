import { Agent } from './undici-agent.ts';

let sharedAgent: Agent | undefined;
let sharedConnectTimeout = 0;

/** One keep-alive connection pool for all upstreams; connections are reused across requests. */
export function getUpstreamAgent(connectTimeoutMs: number): Agent {
  if (!sharedAgent || sharedConnectTimeout !== connectTimeoutMs) {
    sharedAgent = new Agent({ connect: { timeout: connectTimeoutMs }, keepAliveTimeout: 30_000, connections: 256, pipelining: 1 });
    sharedConnectTimeout = connectTimeoutMs;
  }
  return sharedAgent;
}
