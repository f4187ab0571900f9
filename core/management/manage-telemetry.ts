// OpenTelemetry export as the dashboard shows and sets it: GET/PUT /api/telemetry.
import { InvalidRequestError } from '../errors/patchbay-error.ts';
import { section } from '../config/write-config.ts';
import type { TelemetryStatus } from '../telemetry/telemetry.ts';
import { GEN_AI_SEMCONV_VERSION } from '../telemetry/gen-ai-attributes.ts';
import { applyConfigChange } from './apply-config-change.ts';
import { liveConfig, type ManagementContext } from './management-context.ts';
import type { TelemetrySettingsInput } from './management-schemas.ts';

/** Whether export is on, where to, and the last export error; off in the CLI's offline mode. */
export function getTelemetry(ctx: Pick<ManagementContext, 'telemetry'>): TelemetryStatus {
  return ctx.telemetry?.status() ?? { otlp: null, lastExport: null, prometheus: null, captureContent: false, semconvVersion: GEN_AI_SEMCONV_VERSION };
}

/**
 * Turns export on or off and sets where it goes: saved in the config file's telemetry section
 * (which wins over the OTEL_* environment), in force at once. Turning it on needs an endpoint,
 * given here, in the file, or in OTEL_EXPORTER_OTLP_ENDPOINT.
 */
export async function setTelemetry(ctx: Pick<ManagementContext, 'config' | 'catalog' | 'configStore' | 'telemetry'>, input: TelemetrySettingsInput): Promise<TelemetryStatus> {
  if (input.enabled && !input.endpoint && !ctx.config.telemetry.otlp?.endpoint && !ctx.telemetry?.status().otlp) {
    throw new InvalidRequestError('Turning export on needs the collector\'s endpoint, such as http://localhost:4318.', 'endpoint', 'endpoint_required');
  }
  await applyConfigChange(liveConfig(ctx), (raw) => {
    const telemetry = section(raw, 'telemetry');
    const otlp = section(telemetry, 'otlp');
    if (input.enabled !== undefined) otlp.enabled = input.enabled;
    if (input.endpoint !== undefined) otlp.endpoint = input.endpoint;
    if (input.protocol !== undefined) otlp.protocol = input.protocol;
    if (input.captureContent !== undefined) telemetry.captureContent = input.captureContent;
  });
  await ctx.telemetry?.apply(ctx.config.telemetry);
  return getTelemetry(ctx);
}
