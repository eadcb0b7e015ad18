import { configDefaults, defineConfig } from "vitest/config"

/**
 * Two tiers, told apart by folder (test/architecture/tiers.test.ts keeps the rule): `fast` is every test file outside
 * test/system/ (`npm test`; the few of `FAST_FIRST` as project `fast-first`, before the rest), `system` is
 * test/system/ (`npm run test:system`): suites that start processes (the CLI, `serve`, kubectl, Python, the Node
 * client, Chromium), run on the real clock, or simulate long hours.
 * `npx vitest run FILE` runs a file of either tier. `npm test` adds `--no-isolate`: one module graph per worker,
 * not per file, since importing Effect and the simulator once per file was most of the tier's time on 2 cores
 * (collect 60 s against tests 19 s for test/api, test/kernel and test/informer); a fast file leaves no global state
 * behind (spies restored, servers closed with their scope). (In this file vitest 3.2 takes `isolate` only for all
 * projects at once.)
 *
 * `npm run test:system` adds `--maxWorkers 2`: two system files at a time. Vitest's default in `run` mode is one fork
 * less than the CPUs, so on 2 cores one file at a time — the tier's wall time was the sum of its files' (22 min),
 * although most of them wait: on the real clock (phases of seconds, token rotations, leases), on processes starting,
 * on kubectl. Each file still runs alone in its fork, its tests in order unless it says `concurrent`. (`maxWorkers`
 * is a root option in vitest 3.2, not a project's: set on the command line it leaves `npm test` as it is.) The
 * files whose assertions bound a wall-clock time (`SYSTEM_ALONE`) are the project `system-alone`: one fork, after
 * the others (`groupOrder`), so no other file shares the cores with them.
 */

/**
 * Fast files that need a process no other file has run in: V8's tree of hidden-class transitions from `{}` is the
 * process's, and once ~1,536 distinct first keys hang off it (the fuzz tests' bodies) a new key no longer joins it, so
 * the shape tricks `V8Shapes.test.ts` pins stop holding (every merge-patched map a class of its own: fresh-clone CI saw
 * it when vitest's file order put the fuzzing first). They run first, in a fork of their own (project `fast-first`).
 */
const FAST_FIRST = ["test/api/internal/V8Shapes.test.ts"]

/** System files asserting what must happen within a wall-clock time, and the bound (they run alone, after the others). */
const SYSTEM_ALONE = [
  // `run` against a closed port or with the wrong credentials exits within 2 s of its first line (3–8 s with other
  // system files beside it at load 28)
  "test/system/cli/failFast.test.ts",
  // a scheduler replica killed at 1.5 s of a 7 s run: the other takes the Lease and binds the 2 pods created at 2 s
  // before the end (3 binds of 4 with other system files beside it at load 28)
  "test/system/cli/realtime-scheduler.test.ts",
  // two servers' GET latencies, one 40 ms slower, told apart as significant from 40 requests a side (not significant
  // with other system files beside it at load 28)
  "test/system/replay/compareReplay.system.test.ts"
]

export default defineConfig({
  test: {
    pool: "forks",
    // A developer's $KUBECONFIG or ~/.kube/config never becomes a test's target.
    setupFiles: ["test/support/isolateKubeconfig.ts"],
    projects: [
      {
        test: {
          name: "fast",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/system/**", ...FAST_FIRST],
          sequence: { groupOrder: 1 },
          testTimeout: 30_000,
          hookTimeout: 30_000
        }
      },
      {
        test: {
          name: "fast-first",
          include: FAST_FIRST,
          exclude: [...configDefaults.exclude],
          sequence: { groupOrder: 0 },
          testTimeout: 30_000,
          hookTimeout: 30_000
        }
      },
      {
        test: {
          name: "system",
          include: ["test/system/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...SYSTEM_ALONE],
          testTimeout: 120_000,
          hookTimeout: 120_000
        }
      },
      {
        test: {
          name: "system-alone",
          include: SYSTEM_ALONE,
          exclude: [...configDefaults.exclude],
          sequence: { groupOrder: 1 },
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 120_000,
          hookTimeout: 120_000
        }
      }
    ]
  }
})
