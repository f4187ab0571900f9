/** See build-core.js. */
export declare function buildCore(outDir?: string, node?: string): string;
export declare function ensureCoreBuilt(node?: string): string;
