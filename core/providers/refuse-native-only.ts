import type { Endpoint } from '../catalog/load-catalog.ts';
import { InvalidRequestError } from '../errors/patchbay-error.ts';
import type { NativeOnly } from '../protocols/neutral/neutral-request.ts';

/**
 * A request translated through the neutral model, refused before it goes out when it asks for
 * what only the caller's own protocol's upstreams can do (the first such field, named).
 */
export function refuseNativeOnly(nativeOnly: readonly NativeOnly[], provider: string, endpoint: Pick<Endpoint, 'id'>, instead: string): void {
  const first = nativeOnly[0];
  if (!first) return;
  throw new InvalidRequestError(`${provider} (${endpoint.id}) cannot ${first.what}; remove '${first.param}' or use ${instead}.`, first.param, 'unsupported_parameter');
}
