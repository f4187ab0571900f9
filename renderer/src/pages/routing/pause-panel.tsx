import type { RoutingBody } from '../../api/types.ts';

/**
 * Pause or resume routing: while paused, every /v1 request gets a 503 that says how to resume.
 * Not saved: restarting Patchbay resumes it. The tray has the same switch.
 */
export function PausePanel({ routing, onSave, pending }: { routing: RoutingBody; onSave: (body: { paused: boolean }) => Promise<unknown>; pending: boolean }) {
  const paused = routing.paused === true;
  return (
    <section className="card" aria-labelledby="pause-heading">
      <h2 id="pause-heading">{paused ? 'Routing is paused' : 'Routing is on'}</h2>
      <p className="muted">
        {paused
          ? 'Every request to /v1 gets a 503 "routing_paused" until you resume. Restarting Patchbay also resumes it.'
          : 'Pausing makes every request to /v1 fail at once with a 503 that says Patchbay is paused, without calling any provider.'}
      </p>
      <button type="button" className={paused ? 'button primary' : 'button'} disabled={pending} onClick={() => void onSave({ paused: !paused }).catch(() => undefined)}>
        {paused ? 'Resume routing' : 'Pause routing'}
      </button>
    </section>
  );
}
