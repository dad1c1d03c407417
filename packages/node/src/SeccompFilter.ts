/**
 * The seccomp program the Linux sandbox loads: it keeps commands off the
 * host's UNIX-domain sockets, which a read-only mount does not (a
 * `connect()` to `/run/docker.sock` needs no write access).
 *
 * @since 0.4.0
 */

/** Architectures the filter knows: `AUDIT_ARCH_*`, the `socket` syscall number. */
const architectures: Readonly<Record<string, { readonly audit: number; readonly socket: number }>> = {
  x64: { audit: 0xc000003e, socket: 41 },
  arm64: { audit: 0xc00000b7, socket: 198 }
}

/**
 * A classic BPF seccomp program that makes `socket(AF_UNIX, …)` and
 * `io_uring_setup` fail with EPERM and allows everything else; `undefined` on an architecture it does
 * not know. On x86-64 it also refuses the x32 ABI's syscalls and, for
 * 32-bit programs, `socketcall` and `socket`: a filter cannot read
 * `socketcall`'s arguments, and either would be a way around it.
 *
 * @since 0.3.0
 * @category seccomp
 */
export const unixSocketFilter = (arch: string = process.arch): Uint8Array | undefined => {
  const target = architectures[arch]
  if (target === undefined) return undefined
  const LD_W_ABS = 0x20
  const JEQ_K = 0x15
  const JGE_K = 0x35
  const RET_K = 0x06
  const ALLOW = 0x7fff0000
  const DENY = 0x00050000 | 1 // SECCOMP_RET_ERRNO | EPERM
  const AF_UNIX = 1
  // [code, jt, jf, k]; a jump skips that many instructions after itself.
  // io_uring submits socket() and connect() as ring operations the filter never sees
  // (IORING_OP_SOCKET, IORING_OP_CONNECT): without a ring there is no way around it.
  const IO_URING_SETUP = 425
  const program: ReadonlyArray<readonly [number, number, number, number]> = arch === "x64"
    ? [
      [LD_W_ABS, 0, 0, 4], // 0: arch
      [JEQ_K, 0, 6, target.audit], // 1: x86-64, or to 8
      [LD_W_ABS, 0, 0, 0], // 2: syscall number
      [JGE_K, 10, 0, 0x40000000], // 3: the x32 ABI: deny
      [JEQ_K, 9, 0, IO_URING_SETUP], // 4: io_uring_setup: deny
      [JEQ_K, 0, 7, target.socket], // 5: socket, or allow
      [LD_W_ABS, 0, 0, 16], // 6: args[0], low word
      [JEQ_K, 6, 5, AF_UNIX], // 7: AF_UNIX: deny; else allow
      [JEQ_K, 0, 4, 0x40000003], // 8: i386, or allow
      [LD_W_ABS, 0, 0, 0], // 9: syscall number
      [JEQ_K, 3, 0, 102], // 10: socketcall: deny
      [JEQ_K, 2, 0, 359], // 11: socket: deny
      [JEQ_K, 1, 0, IO_URING_SETUP], // 12: io_uring_setup: deny; else allow
      [RET_K, 0, 0, ALLOW], // 13
      [RET_K, 0, 0, DENY] // 14
    ]
    : [
      [LD_W_ABS, 0, 0, 4], // 0: arch
      [JEQ_K, 0, 5, target.audit], // 1: native, or allow
      [LD_W_ABS, 0, 0, 0], // 2: syscall number
      [JEQ_K, 4, 0, IO_URING_SETUP], // 3: io_uring_setup: deny
      [JEQ_K, 0, 2, target.socket], // 4: socket, or allow
      [LD_W_ABS, 0, 0, 16], // 5: args[0], low word
      [JEQ_K, 1, 0, AF_UNIX], // 6: AF_UNIX: deny; else allow
      [RET_K, 0, 0, ALLOW], // 7
      [RET_K, 0, 0, DENY] // 8
    ]
  const bytes = new Uint8Array(program.length * 8)
  const view = new DataView(bytes.buffer)
  program.forEach(([code, jt, jf, k], i) => {
    view.setUint16(i * 8, code, true)
    view.setUint8(i * 8 + 2, jt)
    view.setUint8(i * 8 + 3, jf)
    view.setUint32(i * 8 + 4, k, true)
  })
  return bytes
}
