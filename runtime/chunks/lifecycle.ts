// The lifecycle chunk (push.lifecycle.<hash>.js, beside push.js): the transport and everything only some views
// need (lifecycle-runtime.ts). Its own copy of the site module carries what the core's leaves out (the prompt
// markup, the shop segments). It hands its exports to the core through the script element that loaded it.
import { site } from 'pushkit:site';
import type { CoreServices } from '../services.ts';
import type { Notify } from '../lifecycle.ts';
import type { ChunkScript } from '../chunk-loader.ts';
import type { Transport } from '../create-services.ts';
import { startLifecycleRuntime, type LifecycleRuntime } from '../lifecycle-runtime.ts';
import { transport } from '../transport.ts';
import { logSwallowed } from '../guard.ts';
import { reportLandingClick } from '../landing-click.ts';
import { joinOnce } from '../segments.ts';

/** What the lifecycle chunk exports to the core; `_` members, so the build shortens their names (one build, one map). */
export interface LifecycleChunk {
  _start(services: CoreServices, notify: Notify, coreTriggers: boolean): LifecycleRuntime;
  _transport: Transport;
  /** A landing page opened from a notification the browser showed itself (landing-click.ts), with this copy's site. */
  _landing(): void;
  /** A segment whose condition holds in the core (segments.ts): joined once, with the core's services. */
  _join: typeof joinOnce;
}

export const chunk: LifecycleChunk = {
  // The core's site module first: it is the same build's, less the fields only this copy carries.
  _start: (services, notify, coreTriggers) =>
    startLifecycleRuntime(Object.assign({}, services, transport, { site_: Object.assign({}, site, services.site_) }), notify, coreTriggers),
  _transport: transport,
  // the core's site module leaves out serverSyncUrl (a CoreSiteModule, runtime/site-module.ts); this copy has it
  _landing: () => reportLandingClick(site),
  _join: joinOnce,
};

try {
  const script = document.currentScript as ChunkScript | null;
  if (script && script.pushkitChunk) script.pushkitChunk(chunk);
} catch (error) {
  logSwallowed(error);
}
