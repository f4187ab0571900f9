import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { formatTokens, formatUsd } from '../../format/format-numbers.ts';
import { UsageBar } from './usage-bar.tsx';

describe("a key's usage against its cap", () => {
  it('is a meter with value, max and a readable text', () => {
    render(<UsageBar label="Tokens" used={1200} cap={5000} format={formatTokens} />);
    const meter = screen.getByRole('meter', { name: 'Tokens this month' });
    expect(meter.getAttribute('aria-valuenow')).toBe('1200');
    expect(meter.getAttribute('aria-valuemax')).toBe('5000');
    expect(meter.getAttribute('aria-valuetext')).toBe(`${formatTokens(1200)} of ${formatTokens(5000)}`);
    expect(meter.className).toContain('ok');
  });

  it('warns from 80 % and shows a full bar past the cap', () => {
    const { rerender } = render(<UsageBar label="Cost" used={8.5} cap={10} format={formatUsd} />);
    expect(screen.getByRole('meter').className).toContain('warn');
    rerender(<UsageBar label="Cost" used={12} cap={10} format={formatUsd} />);
    const meter = screen.getByRole('meter');
    expect(meter.className).toContain('bad');
    expect(meter.getAttribute('aria-valuenow')).toBe('10');
    expect((meter.firstElementChild as HTMLElement).style.width).toBe('100%');
  });

  it('without a cap shows the usage as text and no meter', () => {
    render(<UsageBar label="Tokens" used={42} cap={null} format={formatTokens} />);
    expect(screen.queryByRole('meter')).toBeNull();
    expect(screen.getByText(/42 \(no cap\)/)).toBeTruthy();
  });
});

describe('a capped key the cap refuses below 100 %', () => {
  it('turns red and says what the last refused request needed and what is left, with the reserved part shown', () => {
    render(<UsageBar label="Cost" used={0.00077} cap={0.001} reserved={0.0001} refusedNeeding={0.0003} format={formatUsd} />);
    const meter = screen.getByRole('meter', { name: 'Cost this month' });
    expect(meter.className).toContain('bad');
    expect(meter.getAttribute('aria-valuetext')).toBe(`${formatUsd(0.00077)} of ${formatUsd(0.001)}, ${formatUsd(0.0001)} reserved`);
    expect(screen.getByText(/Refusing requests: the last needed up to \$0\.0003/)).toBeTruthy();
    expect(meter.querySelector('.meter-reserved')).toBeTruthy();
  });
});
