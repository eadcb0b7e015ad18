/** The scheduler's command-line options and configuration document (spec 001 "Scheduler command-line options"). */
export * from "./SchedulerConfiguration.js"
export * from "./SchedulerFlags.js"
export * from "./SchedulerOptions.js"
