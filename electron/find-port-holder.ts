// Moved to core (the CLI names a port's holder too); kept here so the desktop app's imports stay.
export { findPortHolder } from '../core/app/find-port-holder.ts';
