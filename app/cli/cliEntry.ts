/** The CLI as a child process of its own (`run --segments n` starts one per segment, ./LocalSegments.ts); it exits with its parent. */
import { exitWithParent } from "./ChildEntry.js"
import { runAsProcess } from "./main.js"

exitWithParent()
runAsProcess()
