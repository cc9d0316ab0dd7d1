"""What CPU this is: model name, architecture and the instruction sets inference cares about.

Neural-network kernels (onnxruntime's MLAS, OpenCV's DNN) pick a code path from these sets at
run time: AVX-512 VNNI or AVX2 on x86, NEON dot product on ARM64. A model whose readings change
with that choice is not portable (see models/MODEL_CARD.md, "Same cards on every CPU").
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from pathlib import Path

# The instruction sets that select inference kernels, in the order they are reported.
X86_SETS = (
    "sse4_1", "sse4_2", "avx", "fma", "f16c", "avx2", "avx512f", "avx512bw", "avx512_vnni",
    "avx_vnni", "avx512_bf16", "amx_int8",
)  # fmt: skip
ARM_SETS = ("asimd", "asimddp", "asimdhp", "fphp", "i8mm", "bf16", "sve", "sve2", "sme")


@dataclass(frozen=True)
class CpuInfo:
    """The CPU a process runs on."""

    machine: str  # platform.machine(): x86_64, aarch64, ...
    model: str  # "AMD Ryzen 5 5600U", "Cortex-A76", or "unknown"
    instruction_sets: tuple[str, ...]  # those of X86_SETS / ARM_SETS the CPU has

    @property
    def has_vnni(self) -> bool:
        """True where x86 int8 kernels take the VNNI path (no 16-bit intermediate sums)."""
        return "avx512_vnni" in self.instruction_sets or "avx_vnni" in self.instruction_sets

    def describe(self) -> str:
        """One line: "x86_64, Intel Xeon, avx2 avx512f ..."."""
        sets = " ".join(self.instruction_sets) or "none of the known sets"
        return f"{self.machine}, {self.model}, {sets}"


# ARM part numbers (MIDR "CPU part") of the cores gintray is meant to run on.
ARM_PARTS = {"0xd03": "Cortex-A53", "0xd08": "Cortex-A72", "0xd0b": "Cortex-A76"}


def parse_cpuinfo(text: str, machine: str) -> CpuInfo:
    """A CpuInfo from the text of /proc/cpuinfo (first processor's entry)."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        key, _, value = line.partition(":")
        fields.setdefault(key.strip().lower(), value.strip())
    flags = set((fields.get("flags") or fields.get("features") or "").split())
    known = ARM_SETS if machine.lower() in {"aarch64", "arm64"} else X86_SETS
    model = fields.get("model name") or ARM_PARTS.get(fields.get("cpu part", ""), "") or "unknown"
    return CpuInfo(machine, model, tuple(s for s in known if s in flags))


def cpu_info(cpuinfo: Path = Path("/proc/cpuinfo")) -> CpuInfo:
    """This machine's CpuInfo (model "unknown" and no sets where /proc/cpuinfo cannot be read)."""
    machine = platform.machine()
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return CpuInfo(machine, platform.processor() or "unknown", ())
    return parse_cpuinfo(text, machine)
