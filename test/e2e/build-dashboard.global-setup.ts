import { ensureRendererBuilt } from '../../scripts/build-renderer.js';

/**
 * Builds the dashboard once before the core project's files run: the e2e files run in parallel,
 * and two Vite builds writing renderer/dist at once would break each other's output. A no-op (a
 * walk of renderer/'s mtimes) when the build is fresh.
 */
export default function buildDashboard(): void {
  ensureRendererBuilt(process.execPath);
}
