import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TelemetryBody } from '../../api/types.ts';
import { installFakeApi, json } from '../../test-support/fake-api.ts';
import { TelemetryPanel } from './telemetry-panel.tsx';

afterEach(() => vi.unstubAllGlobals());

const off: TelemetryBody = { otlp: null, lastExport: null, prometheus: null, captureContent: false, semconvVersion: '1.45.0' };
const on: TelemetryBody = {
  ...off,
  otlp: { endpoint: 'http://collector:4318', protocol: 'http/protobuf', traces: true, metrics: true, source: 'config' },
  lastExport: { lastSuccessAt: null, lastErrorAt: Date.parse('2026-11-29T06:00:00Z'), lastError: 'traces: connect ECONNREFUSED 10.0.0.9:4318' },
};
const renderPanel = () => render(<QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}><TelemetryPanel /></QueryClientProvider>);

describe('the OpenTelemetry panel on the Overview page', () => {
  it('says export is off and turns it on with the endpoint typed in', async () => {
    const { calls } = installFakeApi({ 'GET /api/telemetry': () => json(200, off), 'PUT /api/telemetry': () => json(200, on) });
    renderPanel();
    expect(await screen.findByText(/Prometheus metrics \(GET \/metrics\) are off/)).toBeTruthy();
    expect(screen.getByText(/prompts and answers are never exported/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Collector (OTLP/HTTP)'), { target: { value: 'http://collector:4318' } });
    fireEvent.click(screen.getByRole('button', { name: 'Turn export on' }));
    expect(await screen.findByText('http://collector:4318')).toBeTruthy();
    expect(calls.at(-1)).toEqual({ method: 'PUT', path: '/api/telemetry', body: { enabled: true, endpoint: 'http://collector:4318' } });
  });

  it('shows where export goes and the last export error, and turns it off', async () => {
    const { calls } = installFakeApi({ 'GET /api/telemetry': () => json(200, on), 'PUT /api/telemetry': () => json(200, off) });
    renderPanel();
    expect(await screen.findByText('http://collector:4318')).toBeTruthy();
    expect(screen.getByText('export failing')).toBeTruthy();
    expect(screen.getByRole('status').textContent).toContain('connect ECONNREFUSED');
    fireEvent.click(screen.getByRole('button', { name: 'Turn export off' }));
    expect(await screen.findByRole('button', { name: 'Turn export on' })).toBeTruthy();
    expect(calls.at(-1)).toMatchObject({ method: 'PUT', body: { enabled: false } });
  });
});
