/** See build-renderer.js. */
export declare function buildRenderer(node?: string): string;
export declare function ensureRendererBuilt(node?: string): string;
