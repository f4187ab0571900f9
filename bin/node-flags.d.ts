/** V8 flags and environment Patchbay's server runs with; see node-flags.js. */
export declare const NODE_FLAGS: readonly string[];
export declare const NODE_ENV: Readonly<Record<string, string>>;
