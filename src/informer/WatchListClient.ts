/**
 * client-go's `WatchListClient` feature gate (`KUBE_FEATURE_WatchListClient`, KEP-3157) for a whole run: whether the
 * reflectors that do not choose for themselves (`ReflectorOptions.watchList` unset) sync by a WatchList stream
 * instead of LIST + WATCH — the simulated control plane's informers (scheduler, controllers, a real-time cluster's
 * observer) and the scenario's `informers` actions alike. A scenario sets it with `clientFeatureGates.WatchListClient`
 * (docs/watchlist.md); off by default, as in client-go 1.27–1.33.
 */
import { Context } from "effect"

export class WatchListClient extends Context.Reference<WatchListClient>()("clustersim/informer/WatchListClient", { defaultValue: (): boolean => false }) {}
