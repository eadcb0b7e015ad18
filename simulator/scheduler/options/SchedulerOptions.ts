/**
 * From parsed flags to the scheduler's effective configuration, as upstream kube-scheduler 1.26
 * (`cmd/kube-scheduler/app/options/options.go` `ApplyTo`, `Validate`, `Config`; `server.go` `Run`):
 *
 * - without `--config`: defaults, then the deprecated flags that were given, then the leader election flags;
 * - with `--config`: the file (its values win over deprecated flags, which are ignored), then the leader
 *   election flags, then the file is validated;
 * - `--pod-max-in-unschedulable-pods-duration` has no file field and applies in both cases.
 */
import { Either } from "effect"
import {
  configError,
  defaultSchedulerConfiguration,
  encodeConfiguration,
  loadConfiguration,
  type SchedulerConfigError,
  type SchedulerConfiguration,
  validateConfiguration
} from "./SchedulerConfiguration.js"
import { knownCipherSuites, type SchedulerOptions } from "./SchedulerFlags.js"
import { goQuote } from "../../../src/api/go/Quote.js"
import { validateLeaderElectionConfig } from "../../leaderelection/LeaderElector.js"

/** Decodes the `--config` file's text and keeps it in the options (a pure step: the caller reads the file). */
export const withConfigFile = (
  opts: SchedulerOptions,
  text: string
): Either.Either<SchedulerOptions, SchedulerConfigError> =>
  Either.map(loadConfiguration(text, opts.featureGates), (loaded) => ({
    ...opts,
    configFile: loaded.configuration,
    warnings: [...opts.warnings, ...loaded.warnings]
  }))

const usesConfigFile = (opts: SchedulerOptions) => opts.flags.config !== "" || opts.configFile !== undefined

/** Upstream `ApplyDeprecated`: only flags given on the command line override the defaults. */
const applyDeprecated = (c: SchedulerConfiguration, opts: SchedulerOptions): SchedulerConfiguration => {
  const given = (name: string) => opts.changed.has(name)
  const f = opts.flags
  return {
    ...c,
    enableProfiling: given("profiling") ? f.profiling : c.enableProfiling,
    enableContentionProfiling: given("contention-profiling") ? f.contentionProfiling : c.enableContentionProfiling,
    clientConnection: {
      ...c.clientConnection,
      platformconfig: given("platformconfig") ? f.platformconfig : c.clientConnection.platformconfig,
      contentType: given("platform-api-content-type") ? f.platformApiContentType : c.clientConnection.contentType,
      qps: given("platform-api-qps") ? f.platformApiQps : c.clientConnection.qps,
      burst: given("platform-api-burst") ? f.platformApiBurst : c.clientConnection.burst
    },
    leaderElection: {
      ...c.leaderElection,
      resourceNamespace: given("lock-object-namespace") ? f.lockObjectNamespace : c.leaderElection.resourceNamespace,
      resourceName: given("lock-object-name") ? f.lockObjectName : c.leaderElection.resourceName
    }
  }
}

/** Upstream `ApplyLeaderElectionTo`: applied after the deprecated flags, so `--leader-elect-resource-*` win. */
const applyLeaderElectionFlags = (c: SchedulerConfiguration, opts: SchedulerOptions): SchedulerConfiguration => {
  const given = (name: string) => opts.changed.has(name)
  const f = opts.flags
  const le = c.leaderElection
  return {
    ...c,
    leaderElection: {
      leaderElect: given("leader-elect") ? f.leaderElect : le.leaderElect,
      leaseDuration: given("leader-elect-lease-duration") ? f.leaderElectLeaseDuration : le.leaseDuration,
      renewDeadline: given("leader-elect-renew-deadline") ? f.leaderElectRenewDeadline : le.renewDeadline,
      retryPeriod: given("leader-elect-retry-period") ? f.leaderElectRetryPeriod : le.retryPeriod,
      resourceLock: given("leader-elect-resource-lock") ? f.leaderElectResourceLock : le.resourceLock,
      resourceName: given("leader-elect-resource-name") ? f.leaderElectResourceName : le.resourceName,
      resourceNamespace: given("leader-elect-resource-namespace") ? f.leaderElectResourceNamespace : le.resourceNamespace
    }
  }
}

/**
 * The configuration the scheduler runs with. With `--config` the file must have been loaded with
 * `withConfigFile` first (a missing file is a caller bug, thrown).
 */
export const effectiveConfiguration = (opts: SchedulerOptions): SchedulerConfiguration => {
  if (usesConfigFile(opts)) {
    if (!opts.configFile) throw new Error(`configuration file ${goQuote(opts.flags.config)} was not loaded`)
    return applyLeaderElectionFlags(opts.configFile, opts)
  }
  return applyLeaderElectionFlags(applyDeprecated(defaultSchedulerConfiguration(opts.featureGates), opts), opts)
}

/** The `--write-config-to` document. */
export const renderConfiguration = (opts: SchedulerOptions): string => encodeConfiguration(effectiveConfiguration(opts))

/** How long a pod may stay unschedulable before it is requeued (milliseconds; deprecated flag, no file field). */
export const podMaxInUnschedulablePodsDuration = (opts: SchedulerOptions): number =>
  opts.flags.podMaxInUnschedulablePodsDuration

const tlsVersions = new Set(["VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13"])
const resourceLocks = new Set(["leases", "endpointsleases", "configmapsleases"])
/** Upstream `leaderelection.NewLeaderElector` checks, in order: the leader elector's own. */
export const leaderElectorError = validateLeaderElectionConfig

/**
 * Everything upstream checks before the scheduler runs, phase by phase; the first failing phase is the
 * error (its messages aggregated):
 * 1. logs and option validation (`--logging-format`, `--secure-port`, `--show-hidden-metrics-for-version`);
 * 2. with `--config`: the file after the leader election flags (`ValidateKubeSchedulerConfiguration`);
 *    without it upstream validates only the defaults, so flag values are first checked by phase 4;
 * 3. TLS settings, then the resource lock kind;
 * 4. the leader elector's own checks (`couldn't create leader elector: …`).
 */
export const validateSchedulerOptions = (opts: SchedulerOptions): Either.Either<SchedulerOptions, SchedulerConfigError> => {
  const f = opts.flags
  if (f.loggingFormat !== "text") {
    return Either.left(configError([`format: Invalid value: ${goQuote(f.loggingFormat)}: Unsupported log format`]))
  }
  const optionErrors: Array<string> = []
  if (f.securePort < 0 || f.securePort > 65535) {
    optionErrors.push(
      `--secure-port ${f.securePort} must be between 0 and 65535, inclusive. 0 for turning off secure port`
    )
  }
  // Only the previous minor version of 1.26 is accepted.
  if (f.showHiddenMetricsForVersion !== "" && f.showHiddenMetricsForVersion !== "1.25") {
    optionErrors.push(
      "--show-hidden-metrics-for-version must be omitted or have the value '1.25'. Only the previous minor version is allowed"
    )
  }
  if (optionErrors.length > 0) return Either.left(configError(optionErrors))

  const config = effectiveConfiguration(opts)
  if (usesConfigFile(opts)) {
    const errs = validateConfiguration(config)
    if (errs.length > 0) return Either.left(configError(errs))
  }

  if (f.tlsMinVersion !== "" && !tlsVersions.has(f.tlsMinVersion)) {
    return Either.left(configError([`unknown tls version ${goQuote(f.tlsMinVersion)}`]))
  }
  const badCipher = f.tlsCipherSuites.find((c) => !knownCipherSuites.has(c))
  if (badCipher !== undefined) {
    return Either.left(configError([`Cipher suite ${badCipher} not supported or doesn't exist`]))
  }

  const le = config.leaderElection
  if (le.leaderElect) {
    if (!resourceLocks.has(le.resourceLock)) {
      const removed = le.resourceLock === "endpoints" || le.resourceLock === "configmaps"
      const cause = removed
        ? `${le.resourceLock} lock is removed, migrate to ${le.resourceLock}leases`
        : `Invalid lock-type ${le.resourceLock}`
      return Either.left(configError([`couldn't create resource lock: ${cause}`]))
    }
    const elector = leaderElectorError(le)
    if (elector) return Either.left(configError([`couldn't create leader elector: ${elector}`]))
  }
  return Either.right(opts)
}
