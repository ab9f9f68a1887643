// Whether a model can run here before anything is made for it (a session, branches): a
// session whose model cannot run would only be litter, and a branch's turn would never start.
import { ModelRegistry } from '@tangent/agent/light'
import { TangentError } from '@tangent/core'
import type { Backend } from './backend.js'

/**
 * `invalid-model` for a name no provider has (`demo:nope`, `acme:x`: the Host would refuse it
 * too), `model-unavailable` when no model of its provider is configured (e.g. no API key).
 */
export async function assertModelAvailable(backend: Backend, model: string): Promise<void> {
  ModelRegistry.parseKnown(model)
  const provider = model.slice(0, model.indexOf(':') + 1)
  const listings = (await backend.info()).models.filter((listing) => listing.id.startsWith(provider))
  if (listings.length === 0 || listings.some((listing) => listing.available)) return
  const reason = listings.find((listing) => listing.reason)?.reason ?? 'its provider is not configured'
  throw new TangentError('model-unavailable', `${model} cannot run: ${reason}`, { model })
}
