import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { RequestAdjustments } from './request-adjustments.tsx';

describe("a request's translation in its detail", () => {
  it('lists what was left out and what was changed, as the response headers said', () => {
    render(<RequestAdjustments adjustments={{ dropped: ['context_management', 'output_config.effort'], adjusted: ['max_tokens=16384 (gpt-4o output limit; asked 32000)'] }} />);
    expect(screen.getByRole('heading', { name: 'Translation' })).toBeTruthy();
    expect(screen.getByText('context_management, output_config.effort')).toBeTruthy();
    expect(screen.getByText('max_tokens=16384 (gpt-4o output limit; asked 32000)')).toBeTruthy();
  });

  it('shows nothing for a request translated without changes (or an older row)', () => {
    const { container } = render(<RequestAdjustments adjustments={null} />);
    expect(container.textContent).toBe('');
  });
});
