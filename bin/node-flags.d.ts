/** V8 flags Patchbay's server runs with; see node-flags.js. */
export declare const NODE_FLAGS: readonly string[];
