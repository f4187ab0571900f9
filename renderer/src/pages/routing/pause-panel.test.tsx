import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { RoutingBody } from '../../api/types.ts';
import { PausePanel } from './pause-panel.tsx';

const routing = (paused: boolean) => ({ strategy: 'balanced', paused, weights: { latency: 0.4, cost: 0.3, availability: 0.3 }, fallbacks: {}, aliases: {} }) as unknown as RoutingBody;

describe('pausing routing from the Routing page', () => {
  it('offers to pause a running router, and sends paused: true', () => {
    const onSave = vi.fn(() => Promise.resolve());
    render(<PausePanel routing={routing(false)} onSave={onSave} pending={false} />);
    expect(screen.getByRole('heading', { name: 'Routing is on' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Pause routing' }));
    expect(onSave).toHaveBeenCalledWith({ paused: true });
  });

  it('says a paused router answers 503 and offers to resume it', () => {
    const onSave = vi.fn(() => Promise.resolve());
    render(<PausePanel routing={routing(true)} onSave={onSave} pending={false} />);
    expect(screen.getByRole('heading', { name: 'Routing is paused' })).toBeTruthy();
    expect(screen.getByText(/503 "routing_paused"/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Resume routing' }));
    expect(onSave).toHaveBeenCalledWith({ paused: false });
  });

  it('cannot be pressed twice while a change is on its way', () => {
    render(<PausePanel routing={routing(false)} onSave={() => Promise.resolve()} pending />);
    expect((screen.getByRole('button', { name: 'Pause routing' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
