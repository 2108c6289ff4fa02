#!/usr/bin/env python3
"""Checks that an object compiled for a wider instruction set shares no such code with the others.

The exact solver's x86-64-v3 and x86-64-v4 copies (src/backends/cpu/endgame_solver_x86_64_v3.cpp,
_v4.cpp) are compiled with -march=x86-64-v3 / -v4 and only called on CPUs that have them. Any
function such a copy defines with a global or
weak symbol, other than its entry point, could be picked by the linker for a call from another
file (a shared inline function or template instantiation is emitted by every file that uses
it), and would then run AVX2 code on a CPU without it. So every such function must belong to an
anonymous namespace (the copy instantiates the solver with a type of its own for that), or be
made of plain integer and control-flow instructions only, which run the same on every x86-64
CPU: compilers and standard libraries emit a few such helpers in every file that includes
their headers (clang's __clang_call_terminate; GCC 13's <thread> defines
std::thread::_M_thread_deps_never_run, which only names pthread_create and pthread_join), and
which ones depends on their versions, so they are judged by their code, not by a list of
names: all the code of the function's COMDAT group, since the linker takes the group whole,
with any piece the compiler split off into another section of it (a ".cold" part). The
script fails otherwise, naming each function and the instructions that are not plain.

Usage: check-isa-object.py OBJECT_FILE ENTRY_POINT_SUBSTRING
       check-isa-object.py --self-test CXX_COMPILER   (builds three small objects and checks
                                                        that the plain one passes and the two
                                                        with AVX2 code fail)
"""
import os
import re
import subprocess
import sys
import tempfile

# Mnemonics (objdump, Intel syntax) that every x86-64 CPU runs: moves, address arithmetic,
# integer arithmetic and logic, shifts, comparisons, branches, calls, the stack, and the
# padding and control-flow-protection no-ops. Nothing here is SSE/AVX, BMI, LZCNT, POPCNT or
# MOVBE: a function of only these does the same thing whichever file's copy the linker keeps.
PLAIN = {
    "mov", "movzx", "movsx", "movsxd", "movabs", "lea", "push", "pop", "call", "jmp", "ret",
    "leave", "nop", "endbr64", "int3", "ud2", "hlt", "add", "adc", "sub", "sbb", "and", "or",
    "xor", "not", "neg", "inc", "dec", "cmp", "test", "shl", "shr", "sar", "sal", "rol", "ror",
    "imul", "mul", "div", "idiv", "cdq", "cdqe", "cqo", "cwde", "xchg", "bt", "bts", "btr",
    "btc", "bsf", "bsr", "cmpxchg", "xadd",
}
PLAIN_PREFIXES = ("j", "set", "cmov")  # conditional jumps, set and cmov on a condition code
PREFIXES = {"lock", "rep", "repz", "repnz", "repe", "repne", "bnd", "notrack", "data16", "cs", "ds",
            "es", "ss", "fs", "gs", "addr32"}
# Conditional mnemonic suffixes (je, setne, cmovg, ...): the prefixes above name a plain
# instruction only when followed by one of these.
CONDITIONS = {"o", "no", "b", "c", "nae", "ae", "nb", "nc", "e", "z", "ne", "nz", "be", "na", "a",
              "nbe", "s", "ns", "p", "pe", "np", "po", "l", "nge", "ge", "nl", "le", "ng", "g", "nle",
              "mp", "rcxz", "ecxz"}


def is_plain(mnemonic):
    if mnemonic in PLAIN:
        return True
    for p in PLAIN_PREFIXES:
        if mnemonic.startswith(p) and mnemonic[len(p):] in CONDITIONS:
            return True
    return False


def run(args):
    try:
        return subprocess.run(args, check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        sys.exit(f"check-isa-object: {args[0]} (binutils) is not installed")
    except subprocess.CalledProcessError as e:
        sys.exit(f"check-isa-object: {' '.join(args)}: {e.stderr.strip()}")


def code_by_section(obj):
    """Section name -> {demangled function name -> set of the mnemonics in its code}
    (objdump -d, Intel syntax)."""
    out = run(["objdump", "-d", "-C", "--no-show-raw-insn", "-M", "intel", obj])
    sections, functions, current = {}, None, None
    header = re.compile(r"^[0-9a-f]+ <(.*)>:$")
    for line in out.splitlines():
        if line.startswith("Disassembly of section "):
            functions = sections.setdefault(line[len("Disassembly of section "):].rstrip(":"), {})
            current = None
            continue
        m = header.match(line)
        if m and functions is not None:
            current = functions.setdefault(m.group(1), set())
            continue
        if current is None or ":\t" not in line:
            continue
        words = line.split(":\t", 1)[1].split()
        while words and words[0] in PREFIXES:
            words = words[1:]
        if words:
            current.add(words[0])  # "(bad)" too: not plain, so it fails the check
    return sections


def section_groups(obj):
    """Section index -> the names of every section in its COMDAT group (readelf -g, -S)."""
    names = {}
    for line in run(["readelf", "-SW", obj]).splitlines():
        m = re.match(r"^\s*\[\s*(\d+)\]\s+(\S+)", line)
        if m:
            names[int(m.group(1))] = m.group(2)
    groups, members = {}, None
    for line in run(["readelf", "-gW", obj]).splitlines():
        if line.startswith("COMDAT group section"):
            members = []
            continue
        m = re.match(r"^\s*\[\s*(\d+)\]\s+(\S+)", line)
        if m and members is not None:
            members.append(int(m.group(1)))
            for index in members:
                groups[index] = [names.get(i, "") for i in members]
    return groups


def check(obj, entry):
    """Returns (ok, message lines)."""
    out = run(["readelf", "-sW", "--demangle", obj])
    shared, entries = [], 0
    for line in out.splitlines():
        cols = line.split(None, 7)
        # Num: Value Size Type Bind Vis Ndx Name
        if len(cols) < 8 or cols[3] != "FUNC" or cols[4] not in ("GLOBAL", "WEAK") or cols[6] == "UND":
            continue
        name = cols[7]
        if entry in name:
            entries += 1
        elif "(anonymous namespace)" not in name:
            shared.append((name, int(cols[6]) if cols[6].isdigit() else -1))
    if entries != 1:
        return False, [f"check-isa-object: {obj} defines {entries} functions named like '{entry}' (expected 1)"]
    sections = code_by_section(obj) if shared else {}
    groups = section_groups(obj) if shared else {}
    bad, plain = [], []
    for name, index in shared:
        # The linker keeps or drops a COMDAT group whole: with an inline function it takes the
        # pieces the compiler split off into other sections of the group (a ".cold" part, local
        # clones), so all the group's code is judged. A function outside any group is judged alone.
        if index in groups:
            code = {f: m for sec in groups[index] for f, m in sections.get(sec, {}).items()}
        else:
            code = {f: m for functions in sections.values() for f, m in functions.items() if f == name}
        if name not in code:
            bad.append(f"  {name}: its code was not found in objdump's listing")
            continue
        wide = sorted({m for mnemonics in code.values() for m in mnemonics if not is_plain(m)})
        if wide:
            pieces = f" (with {', '.join(sorted(f for f in code if f != name))})" if len(code) > 1 else ""
            bad.append(f"  {name}{pieces}: uses {', '.join(wide)}")
        else:
            plain.append(name)
    if bad:
        return False, [f"check-isa-object: {obj} defines functions other files could link to, "
                       "with instructions not every x86-64 CPU has (move them into an anonymous namespace):"] + bad
    note = f" (and {len(plain)} shared helper(s) of plain integer code: {', '.join(plain)})" if plain else ""
    return True, [f"check-isa-object: {obj}: only its entry point is shared{note}"]


SELF_TEST_SOURCE = r"""
#include <cstdint>
namespace { struct Mine {}; }
namespace shared_ns {
// Emitted as a weak symbol: plain integer code, as a standard-library helper would be.
[[gnu::noinline]] inline int plain_helper(int x) { return x > 3 ? x + 1 : x - 1; }
// Emitted as a weak symbol with AVX2 code: what the check exists to catch.
[[gnu::noinline]] inline void wide_helper(std::int32_t* __restrict a, const std::int32_t* __restrict b) {
  for (int i = 0; i < 64; ++i) a[i] += b[i] * 3;
}
}
int make_thing_entry(int x, std::int32_t* a, const std::int32_t* b) {
  WIDE_CALL
  return shared_ns::plain_helper(x);
}
"""


# An inline function whose body is plain but whose ".cold" part, split off by the compiler into
# another section of its COMDAT group, uses AVX2 (written out, since no compiler does it on
# demand): the check must judge the group, not the symbol's own bytes.
SELF_TEST_COLD_ASM = r"""
        .intel_syntax noprefix
        .section .text._Z6helperi,"axG",@progbits,_Z6helperi,comdat
        .weak _Z6helperi
        .type _Z6helperi, @function
_Z6helperi:
        test edi, edi
        jne _Z6helperi.cold
        mov eax, 1
        ret
        .size _Z6helperi, .-_Z6helperi
        .section .text.unlikely._Z6helperi,"axG",@progbits,_Z6helperi,comdat
        .type _Z6helperi.cold, @function
_Z6helperi.cold:
        vpxor ymm0, ymm0, ymm0
        vzeroupper
        ret
        .size _Z6helperi.cold, .-_Z6helperi.cold
        .text
        .globl make_thing_entry
        .type make_thing_entry, @function
make_thing_entry:
        jmp _Z6helperi
        .size make_thing_entry, .-make_thing_entry
        .section .note.GNU-stack,"",@progbits
"""


def self_test(cxx):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "t.cpp")
        with open(src, "w") as f:
            f.write(SELF_TEST_SOURCE)
        results = {}
        for name, wide_call in (("plain", "(void)a; (void)b;"), ("wide", "shared_ns::wide_helper(a, b);")):
            obj = os.path.join(d, name + ".o")
            subprocess.run([cxx, "-std=c++20", "-O3", "-march=x86-64-v3", f"-DWIDE_CALL={wide_call}", "-c", src, "-o", obj],
                           check=True)
            results[name] = check(obj, "make_thing_entry")
        asm, obj = os.path.join(d, "cold.s"), os.path.join(d, "cold.o")
        with open(asm, "w") as f:
            f.write(SELF_TEST_COLD_ASM)
        subprocess.run([cxx, "-c", asm, "-o", obj], check=True)
        results["cold"] = check(obj, "make_thing_entry")
    failures = []
    ok, msg = results["plain"]
    if not ok or "plain_helper" not in msg[0]:
        failures.append("an object sharing only a plain helper should pass and name it: " + " / ".join(msg))
    ok, msg = results["wide"]
    if ok or not any("wide_helper" in m for m in msg) or any("plain_helper" in m for m in msg[1:]):
        failures.append("an object sharing an AVX2 helper should fail naming it alone: " + " / ".join(msg))
    ok, msg = results["cold"]
    if ok or not any("helper(int)" in m and "vpxor" in m for m in msg):
        failures.append("an object sharing a plain function whose .cold part uses AVX2 should fail: " + " / ".join(msg))
    for f in failures:
        print("self-test FAILED:", f)
    if not failures:
        print("check-isa-object self-test: plain helper accepted, AVX2 helper and AVX2 .cold part rejected")
    return 1 if failures else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--self-test":
        sys.exit(self_test(sys.argv[2]))
    if len(sys.argv) != 3:
        sys.exit("usage: check-isa-object.py OBJECT_FILE ENTRY_POINT_SUBSTRING | --self-test CXX_COMPILER")
    ok, lines = check(sys.argv[1], sys.argv[2])
    print("\n".join(lines))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
