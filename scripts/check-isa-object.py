#!/usr/bin/env python3
"""Checks that an object compiled for a wider instruction set shares no code with the others.

The exact solver's x86-64-v3 copy (src/backends/cpu/endgame_solver_x86_64_v3.cpp) is compiled with
-march=x86-64-v3 and only called on CPUs that have it. Any function it defines with a global or
weak symbol, other than its entry point, could be picked by the linker for a call from another
file (a shared inline function or template instantiation is emitted by every file that uses
it), and would then run AVX2 code on a CPU without it. So every such function must belong to an
anonymous namespace (the copy instantiates the solver with a type of its own for that), and this
script fails otherwise, naming the functions.

Usage: check-isa-object.py OBJECT_FILE ENTRY_POINT_SUBSTRING
"""
import subprocess
import sys

# Helpers the compiler itself emits in every file, made of calls only (no arithmetic an
# instruction set could change): clang's __clang_call_terminate is __cxa_begin_catch and
# std::terminate.
COMPILER_HELPERS = {"__clang_call_terminate"}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check-isa-object.py OBJECT_FILE ENTRY_POINT_SUBSTRING")
    obj, entry = sys.argv[1], sys.argv[2]
    try:
        out = subprocess.run(["readelf", "-sW", "--demangle", obj], check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        sys.exit("check-isa-object: readelf (binutils) is not installed")
    except subprocess.CalledProcessError as e:
        sys.exit(f"check-isa-object: readelf {obj}: {e.stderr.strip()}")
    shared, entries = [], 0
    for line in out.splitlines():
        cols = line.split(None, 7)
        # Num: Value Size Type Bind Vis Ndx Name
        if len(cols) < 8 or cols[3] != "FUNC" or cols[4] not in ("GLOBAL", "WEAK") or cols[6] == "UND":
            continue
        name = cols[7]
        if entry in name:
            entries += 1
        elif "(anonymous namespace)" not in name and name not in COMPILER_HELPERS:
            shared.append(name)
    if entries != 1:
        sys.exit(f"check-isa-object: {obj} defines {entries} functions named like '{entry}' (expected 1)")
    if shared:
        print(f"check-isa-object: {obj} defines functions other files could link to:")
        for name in shared:
            print(f"  {name}")
        sys.exit(1)
    print(f"check-isa-object: {obj}: only its entry point is shared")


if __name__ == "__main__":
    main()
