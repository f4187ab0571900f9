// Moved to core (the CLI names a port's holder too); kept here so the desktop app's imports stay.
export * from '../../core/app/port-holder.ts';
