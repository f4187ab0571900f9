import type { KeyCapEvent } from '../keys/key-cap-event.ts';
import type { RequestRow } from '../usage/usage-views.ts';

export interface BreakerEvent {
  endpoint: string;
  provider: string;
  state: 'open' | 'closed' | 'half_open';
  /** ISO time of the change. */
  at: string;
}

/** Every live event the dashboard can receive (GET /api/events), by name. */
export interface PatchbayEvents {
  request: RequestRow;
  breaker: BreakerEvent;
  key_cap: KeyCapEvent;
  /** The new GET /api/routing body after a change. */
  routing: unknown;
}

export type EventName = keyof PatchbayEvents;
export type EventListener = <K extends EventName>(name: K, data: PatchbayEvents[K]) => void;

/**
 * Live events from core to whoever listens (the /api/events stream). Emitters check `listening`
 * first, so with nobody subscribed an event costs a branch and builds nothing.
 */
export class EventHub {
  /** Each listener with what ends its stream when Patchbay shuts down. */
  private readonly listeners = new Map<EventListener, () => void>();
  /** Told after a subscription starts or ends (a team's replicas announce that a dashboard watches). */
  onSubscribersChange: (() => void) | null = null;

  get listening(): boolean {
    return this.listeners.size > 0;
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  /** Returns the unsubscribe function. `onClose` runs if Patchbay shuts down first (an open stream must not hold the shutdown). */
  subscribe(listener: EventListener, onClose: () => void = () => undefined): () => void {
    this.listeners.set(listener, onClose);
    this.onSubscribersChange?.();
    return () => this.unsubscribe(listener);
  }

  unsubscribe(listener: EventListener): void {
    if (this.listeners.delete(listener)) this.onSubscribersChange?.();
  }

  /** Shutdown: ends every subscription. */
  close(): void {
    const closers = [...this.listeners.values()];
    this.listeners.clear();
    this.onSubscribersChange?.();
    for (const onClose of closers) onClose();
  }

  emit<K extends EventName>(name: K, data: PatchbayEvents[K]): void {
    // A Map may lose members while iterated (a listener dropping a slow client): safe.
    for (const listener of this.listeners.keys()) {
      try {
        listener(name, data);
      } catch {
        // A listener's failure is its own (a closed socket); it never reaches the emitter (the request path).
      }
    }
  }
}
