"""Run Debian bookworm's proot (5.1.0) so that a foreign root with several users works.

    python3 proot_run.py proot [PROOT ARGS...]

Three things of proot 5.1 are worked around, nothing else changes:

- new system calls: proot 5.1 predates statx, openat2 and faccessat2 and passes their paths
  through untranslated, so under `proot -q qemu-aarch64-static` an arm64 `stat` or `ls`
  (coreutils calls statx) or gpgv (apt's signature check) looks for the guest's paths on the
  host. A seccomp filter answers these three with ENOSYS; qemu-user and glibc then fall back to
  the older calls (fstatat, openat, faccessat), which proot translates.
- threads made with clone3: proot 5.1 emulates brk() for each tracee (a mapping it grows and
  shrinks with mremap) and shares that record between threads only when the clone flags say
  CLONE_VM, but it reads the flags of clone() alone (its `new_child`; upstream proot added
  clone3 in PR #355). qemu-aarch64-static (glibc 2.36) makes one host thread per guest thread,
  with clone3, so every such thread got its own copy of the heap record, stale as soon as
  another thread moved the break; a thread's brk (qemu's malloc growing or trimming its main
  arena) then remapped qemu's heap to a wrong size. Guest programs with threads died minutes
  into a run: onnxruntime 1.32 (its telemetry uploader starts short-lived threads) with
  "malloc(): unaligned tcache chunk detected", "free(): invalid pointer" or "qemu: uncaught
  target signal 11". clone3 is answered with ENOSYS too; glibc then makes the thread with
  clone(), whose flags proot reads.
- the loader: proot starts every program through a small loader it writes to /tmp readable by
  its own user only, so a program run as another user (`runuser -u pi`, apt's `_apt` sandbox)
  gets "Permission denied". The loader is taken from the proot binary (the ELF executable
  embedded in it) into .cache/emulation/proot-loader, mode 0755, and named in PROOT_LOADER.

Only x86_64 calls are refused (statx, clone3, openat2, faccessat2), for every process proot
and qemu start.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import struct
import sys
from pathlib import Path

LOADER = Path(__file__).resolve().parents[2] / ".cache" / "emulation" / "proot-loader"

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
AUDIT_ARCH_X86_64 = 0xC000003E
# x86_64 numbers of the calls newer than proot 5.1: statx, clone3, openat2, faccessat2
REFUSED = (332, 435, 437, 439)
ENOSYS = 38
LD_ABS_W, JEQ_K, RET_K = 0x20, 0x15, 0x06
ALLOW, ERRNO = 0x7FFF0000, 0x00050000

PROGRAM = [  # (code, jump if true, jump if false, k)
    (LD_ABS_W, 0, 0, 4),  # the architecture
    (JEQ_K, 0, len(REFUSED) + 1, AUDIT_ARCH_X86_64),  # not x86_64: allow
    (LD_ABS_W, 0, 0, 0),  # the system call's number
    *((JEQ_K, len(REFUSED) - i, 0, nr) for i, nr in enumerate(REFUSED)),  # refused: to ERRNO
    (RET_K, 0, 0, ALLOW),
    (RET_K, 0, 0, ERRNO | ENOSYS),
]


def refuse_statx() -> None:
    code = b"".join(struct.pack("HBBI", *op) for op in PROGRAM)
    buffer = ctypes.create_string_buffer(code)
    fprog = struct.pack("HxxxxxxP", len(PROGRAM), ctypes.addressof(buffer))
    fprog_buf = ctypes.create_string_buffer(fprog)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong,
                           ctypes.c_ulong]
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog_buf), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


def embedded_loader(binary: bytes) -> bytes:
    """The x86_64 executable ELF embedded in the proot binary (after its own header)."""
    start = 0
    while (start := binary.find(b"\x7fELF", start + 1)) > 0:
        head = binary[start:start + 64]
        if len(head) < 64 or head[4] != 2:  # 64-bit only
            continue
        e_type, e_machine = struct.unpack_from("<HH", head, 16)
        if (e_type, e_machine) != (2, 62):  # ET_EXEC, x86_64
            continue
        e_phoff, e_shoff = struct.unpack_from("<QQ", head, 32)
        phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", head, 54)
        end = e_shoff + shnum * shentsize
        for k in range(phnum):
            at = start + e_phoff + k * phentsize
            offset, filesz = struct.unpack_from("<Q", binary, at + 8)[0], struct.unpack_from(
                "<Q", binary, at + 32)[0]
            end = max(end, offset + filesz)
        return binary[start:start + end]
    raise SystemExit("proot_run.py: no loader found inside the proot binary")


def write_loader() -> None:
    proot = shutil.which("proot")
    if proot is None:
        raise SystemExit("proot_run.py: proot is not installed (apt-get install proot)")
    loader = embedded_loader(Path(proot).read_bytes())
    if not LOADER.exists() or LOADER.read_bytes() != loader:
        LOADER.parent.mkdir(parents=True, exist_ok=True)
        part = LOADER.with_suffix(f".{os.getpid()}")
        part.write_bytes(loader)
        part.chmod(0o755)
        part.replace(LOADER)
    os.environ["PROOT_LOADER"] = str(LOADER)


if __name__ == "__main__":
    if os.uname().machine != "x86_64":
        sys.exit("proot_run.py: written for an x86_64 host")
    write_loader()
    refuse_statx()
    os.execvp(sys.argv[1], sys.argv[1:])
