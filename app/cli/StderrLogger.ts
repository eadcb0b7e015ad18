/**
 * `serve`'s log on stderr, in Effect's own logfmt lines: stdout carries only what `serve` prints for its caller
 * ("listening on URL", the kubeconfig path), which the embedded target's parent process reads (./ServerProcess.ts).
 * Effect's default logger writes to stdout (console.log).
 */
import { Logger } from "effect"

export const layerStderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))
