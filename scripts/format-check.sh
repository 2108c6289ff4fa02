#!/usr/bin/env bash
# Checks that the C++ sources follow .clang-format (clang-format 14, Debian's clang-format).
#   scripts/format-check.sh            every tracked C++ file (include/, cuda/, src/, tests/, bench/, python/, examples/)
#   scripts/format-check.sh --changed REV   only the lines changed since REV (git clang-format)
# Exit 0 when formatted, 1 with the offending files (or the diff) otherwise, 2 for a bad
# revision, 77 when no clang-format is installed or this is not a git checkout (nothing was
# checked; CI treats any non-zero exit as a failure). `clang-format -i FILE` fixes a file.
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=""
for c in clang-format clang-format-14; do command -v "$c" >/dev/null && { fmt=$c; break; }; done
if [[ -z $fmt ]]; then
  echo "format-check: no clang-format (Debian package clang-format): skipped"
  exit 77
fi
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "format-check: not a git checkout (the file list comes from git): skipped"
  exit 77
fi
if [[ ${1:-} == --changed ]]; then
  rev=${2:?--changed needs a revision}
  if ! git rev-parse --verify --quiet "$rev^{commit}" >/dev/null; then
    echo "format-check: '$rev' is not a commit"
    exit 2
  fi
  if ! git clang-format -h >/dev/null 2>&1; then
    echo "format-check: no git clang-format (Debian package clang-format): skipped"
    exit 77
  fi
  # git clang-format --diff exits non-zero when it has a diff to show, so its status says
  # nothing by itself; an error shows as a line starting with "error:".
  out=$(git clang-format --binary "$(command -v "$fmt")" --diff "$rev" -- include cuda src tests bench python examples 2>&1 || true)
  if [[ $out == error:* || $out == *$'\n'error:* ]]; then
    echo "$out"
    echo "format-check: git clang-format failed"
    exit 2
  fi
  if [[ -z $out || $out == "no modified files to format" || $out == *"did not modify any files"* ]]; then
    echo "format-check: the lines changed since $rev are formatted"
    exit 0
  fi
  echo "$out"
  echo "format-check: the lines above changed since $rev are not formatted (clang-format -i FILE)"
  exit 1
fi
bad=()
while IFS= read -r f; do
  if ! "$fmt" --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done < <(git ls-files -- 'include/*.hpp' 'cuda/*.cpp' 'cuda/*.hpp' 'cuda/*.cu' 'examples/*.cpp' 'src/*.cpp' 'src/*.hpp' 'src/*.cu' 'src/*.inc' 'tests/*.cpp' 'tests/*.hpp' 'bench/*.cpp' 'python/*.cpp' 'python/*.hpp' \
  'bench/*.hpp')
if ((${#bad[@]})); then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "format-check: ${#bad[@]} file(s) differ from .clang-format (clang-format -i FILE)"
  exit 1
fi
echo "format-check: every tracked C++ file follows .clang-format"
