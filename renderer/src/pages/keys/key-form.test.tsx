import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../api/api-error.ts';
import { KeyForm } from './key-form.tsx';

describe('the create-key form (validated by core createKeySchema)', () => {
  it('shows the schema error next to the field and sends nothing', async () => {
    const onSubmit = vi.fn(async () => undefined);
    render(<KeyForm models={[]} onSubmit={onSubmit} />);
    await userEvent.type(screen.getByLabelText('Name'), 'editor');
    await userEvent.type(screen.getByLabelText(/Requests per minute/), '2.5');
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }));
    const input = screen.getByLabelText(/Requests per minute/);
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(input.getAttribute('aria-describedby')!)!.textContent).toMatch(/expected int/);
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('requires a name', async () => {
    const onSubmit = vi.fn(async () => undefined);
    render(<KeyForm models={[]} onSubmit={onSubmit} />);
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }));
    expect(screen.getByLabelText(/^Name/).getAttribute('aria-invalid')).toBe('true');
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('sends numbers and the allowlist, leaving empty limits out', async () => {
    const onSubmit = vi.fn(async () => undefined);
    render(<KeyForm models={[{ id: 'gpt-4o-mini', provider: 'openai', kind: 'model', members: [], context_window: 128000, capabilities: [], input_price: 0.15, output_price: 0.6, enabled: true }]} onSubmit={onSubmit} />);
    await userEvent.type(screen.getByLabelText('Name'), 'ci');
    await userEvent.type(screen.getByLabelText(/Monthly USD cap/), '20');
    await userEvent.click(screen.getByLabelText('gpt-4o-mini'));
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }));
    expect(onSubmit).toHaveBeenCalledWith({ name: 'ci', monthly_usd_cap: 20, allowed_models: ['gpt-4o-mini'] });
  });

  it("shows the server's 400 at the field its param names", async () => {
    const onSubmit = vi.fn(async () => { throw new ApiError(400, 'The date is in the past.', 'invalid_request_error', 'expires_at'); });
    render(<KeyForm models={[]} onSubmit={onSubmit} />);
    await userEvent.type(screen.getByLabelText('Name'), 'old');
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }));
    expect(await screen.findByText('The date is in the past.')).toBeTruthy();
    expect(screen.getByLabelText(/Expires on/).getAttribute('aria-invalid')).toBe('true');
  });
});
