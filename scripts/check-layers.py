#!/usr/bin/env python3
"""Checks the include graph of the library against the layer order (docs/architecture.md, "Layers").

The library lives in three trees (the design card's layout): include/evalforge/ (the public API,
included as "evalforge/core/rng.hpp"), cuda/ (the CUDA backend, included as "cuda/x.hpp") and
src/ (the rest, included by the path below src/). The rules below see one logical tree: a file's
logical path is its path below src/, below include/evalforge/, or backends/cuda/ + its name for
cuda/ (the CUDA backend is a subfolder of the backends layer). One more rule holds the public
API together: a header of include/evalforge/ includes no file outside include/evalforge/, so an
installed copy of include/ compiles on its own.

The layer order is declared here, once: a file may include files of its own layer and of the
layers listed before it, never of a layer after it. Besides that:
  - no game folder (src/games/NAME/) includes another game's folder or the game registry
    (include/evalforge/games/registry.hpp, which includes every game);
  - no two folders include each other, whatever their layers, except a folder and its own
    subfolder: an interface and the implementations it chooses from (backends/backend.cpp's
    make_backend knows backends/cpu/ and backends/cuda/, which implement backends/backend.hpp).
Exit 0 when the trees follow the rules; otherwise 1, with one line per offending include
(file:line, what it includes, and the rule it breaks). Run from anywhere; ctest runs it.
"""
import os
import re
import sys

# Lowest first. Each entry: a layer name and the folders (logical paths) that make it up.
LAYERS = [
    ("core", ["core"]),          # EF_HD basics, RNG, errors, files, TOML, run directories
    ("ratings", ["ratings"]),    # Elo, Bradley-Terry, Wilson intervals
    ("ga", ["ga"]),              # game-free genetic algorithms (BRKGA, islands, Elo GA, bit-string GA)
    ("engine", ["engine"]),      # the Game concept, playouts, tree search, the per-game play interface
    ("gtp", ["gtp"]),            # the GTP protocol and external-engine plumbing
    ("games", ["games"]),        # one folder per game, and the registry of playout games
    ("backends", ["backends"]),  # the backend interface, CPU and CUDA backends
    ("data", ["data"]),          # Othello game records, position sets, the built-in generator
    ("runs", ["runs"]),          # resumable runs and the procedures they share
    ("app", ["app"]),            # the command line
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ANGLE_INCLUDE = re.compile(r'^\s*#\s*include\s+<([^>]+)>')


TREES = [  # (folder below the repository, prefix of its include lines, prefix of its logical paths)
    ("include/evalforge", "evalforge/", ""),
    ("cuda", "cuda/", "backends/cuda/"),
    ("src", "", ""),
]


def resolve(repo: str, target: str):
    """The file an include line names, as (path below the repository, logical path), or None."""
    for folder, prefix, logical in TREES:
        if prefix and target.startswith(prefix):
            rest = target[len(prefix):]
            path = f"{folder}/{rest}"
            return (path, logical + rest) if os.path.exists(os.path.join(repo, path)) else None
    path = f"src/{target}"
    return (path, target) if os.path.exists(os.path.join(repo, path)) else None


def main() -> int:
    repo = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    for folder, _, _ in TREES:
        if not os.path.isdir(os.path.join(repo, folder)):
            print(f"check-layers: no source tree at {os.path.join(repo, folder)}")
            return 1
    level = {}
    for i, (_, folders) in enumerate(LAYERS):
        for f in folders:
            level[f] = i
    problems = []
    folder_edges = {}  # (from folder, to folder) -> first include that makes the edge

    for folder, prefix, logical in TREES:
        tree = os.path.join(repo, folder)
        for dirpath, _, files in os.walk(tree):
            for name in sorted(files):
                if not name.endswith((".hpp", ".cpp", ".cu", ".inc", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                shown = os.path.relpath(path, repo).replace(os.sep, "/")
                rel = logical + os.path.relpath(path, tree).replace(os.sep, "/")
                public = folder == "include/evalforge"
                top = rel.split("/")[0]
                if top not in level:
                    problems.append(f"{shown}: the folder '{top}' is in no layer (scripts/check-layers.py, LAYERS)")
                    continue
                with open(path, encoding="utf-8") as fh:
                    for lineno, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            angle = ANGLE_INCLUDE.match(line)
                            if angle and resolve(repo, angle.group(1)):
                                problems.append(f"{shown}:{lineno}: includes <{angle.group(1)}>, a file of this "
                                                f"project: name it in quotes, so the rules here see it")
                            continue
                        text = m.group(1)
                        where = f"{shown}:{lineno}: includes {text}"
                        found = resolve(repo, text)
                        if found is None:
                            if public and not os.path.exists(os.path.join(repo, "include", text)):
                                # An installed consumer has include/ alone: anything else would not be found.
                                problems.append(f"{where}: a public header may include only public headers "
                                                f"(\"evalforge/...\"), and this names no file of include/evalforge/")
                            elif os.path.exists(os.path.join(dirpath, text)):
                                problems.append(f"{where}: a relative include; name it by its path "
                                                f"(\"evalforge/...\", \"cuda/...\" or below src/)")
                            elif resolve(repo, "evalforge/" + text) or resolve(repo, "cuda/" + text.split("/")[-1]):
                                problems.append(f"{where}: no such file below src/; a public header is named "
                                                f"\"evalforge/...\" and a CUDA file \"cuda/...\"")
                            elif text.startswith(("src/", "include/")):
                                problems.append(f"{where}: name a file by its include path, not its folder")
                            continue  # a generated file (dataset_checksums.inc, in the build tree)
                        tpath, target = found
                        if public and not tpath.startswith("include/evalforge/"):
                            problems.append(f"{where}: a public header (include/evalforge/) may include only "
                                            f"public headers, and {tpath} is not one")
                        ttop = target.split("/")[0]
                        if ttop not in level:
                            problems.append(f"{where}: the folder '{ttop}' is in no layer")
                            continue
                        if level[ttop] > level[top]:
                            problems.append(f"{where}: layer '{LAYERS[level[top]][0]}' may not include the higher "
                                            f"layer '{LAYERS[level[ttop]][0]}'")
                        parts, tparts = rel.split("/"), target.split("/")
                        if top == "games" and len(parts) > 2:  # a file inside a game folder
                            if tparts[0] == "games" and (len(tparts) == 2 or tparts[1] != parts[1]):
                                problems.append(f"{where}: the game folder games/{parts[1]} may not include "
                                                f"{'the registry' if len(tparts) == 2 else 'another game'}")
                        src_folder, dst_folder = os.path.dirname(rel), os.path.dirname(target)
                        if src_folder != dst_folder:
                            folder_edges.setdefault((src_folder, dst_folder), where)

    def parent_and_child(a: str, b: str) -> bool:
        return a.startswith(b + "/") or b.startswith(a + "/")

    for (a, b), where in sorted(folder_edges.items()):
        if a < b and (b, a) in folder_edges and not parent_and_child(a, b):
            problems.append(f"folders {a}/ and {b}/ include each other: {where}; {folder_edges[(b, a)]}")

    for p in problems:
        print(p)
    if problems:
        print(f"check-layers: {len(problems)} problem(s)")
        return 1
    print(f"check-layers: include/evalforge/, cuda/ and src/ follow the layer order ({' < '.join(n for n, _ in LAYERS)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
