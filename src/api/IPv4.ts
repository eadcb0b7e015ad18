/** IPv4 addresses as 32-bit numbers, for address ranges (service CIDR, pod CIDRs): dotted-quad text both ways. */

/** The address of a dotted quad; undefined for anything else (no leading `+`, no more than 3 digits a part). */
export const parseIPv4 = (ip: string): number | undefined => {
  const parts = ip.split(".")
  if (parts.length !== 4) return undefined
  let n = 0
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined
    n = n * 256 + Number(p)
  }
  return n
}

/** The dotted quad of an address (0 … 2^32 - 1). */
export const ipv4Text = (n: number): string => `${Math.floor(n / 2 ** 24)}.${Math.floor(n / 65536) % 256}.${Math.floor(n / 256) % 256}.${n % 256}`
