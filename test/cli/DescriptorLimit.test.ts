/** The connection cap that follows the open-file limit (docs/limits.md "Open connections"; issue 36, item 9). */
import { describe, expect, it } from "@effect/vitest"
import { connectionCap, ownDescriptors, parseOpenFilesLimit } from "../../app/cli/DescriptorLimit.js"

const limits = (soft: string, hard: string) => `Limit                     Soft Limit           Hard Limit           Units     
Max processes             96551                96551                processes 
Max open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     
Max locked memory         8388608              8388608              bytes     
`

describe("DescriptorLimit", () => {
  it("reads the soft open-file limit of /proc/self/limits", () => {
    expect(parseOpenFilesLimit(limits("1024", "4096"))).toBe(1024)
    expect(parseOpenFilesLimit(limits("unlimited", "unlimited"))).toBeUndefined()
    expect(parseOpenFilesLimit("Limit Soft Hard\n")).toBeUndefined()
  })

  it("lowers the cap to leave the process its own descriptors, never below 1", () => {
    expect(ownDescriptors).toBe(64)
    expect(connectionCap(4096, 1024)).toBe(960)
    expect(connectionCap(4096, 1_048_576)).toBe(4096)
    expect(connectionCap(100, 1024)).toBe(100)
    expect(connectionCap(4096, 64)).toBe(1)
    expect(connectionCap(4096, undefined)).toBe(4096)
  })
})
