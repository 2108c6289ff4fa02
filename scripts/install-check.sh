#!/usr/bin/env bash
# The three install routes of docs/install.md, checked from a clean copy of this checkout's HEAD
# (CI runs it after the test suite). Everything happens in a temporary folder:
#   1. pip install --no-build-isolation SRC into a fresh venv (Debian's Python, system site
#      packages for setuptools, wheel, pybind11, numpy, pytest): the extension built by CMake;
#   2. the same CMake build tree builds the binary; cmake --install puts everything under PREFIX;
#      cpack -G DEB makes the Debian package;
#   3. the source and build trees are deleted; then the installed binary solves positions with
#      its built-in ordering network (found relative to itself) and runs `score`; the consumer
#      project examples/cpp/ configures with find_package(evalforge), builds and runs; the venv
#      imports evalforge from another folder and the pytest suite runs against the installed
#      package (and the installed binary); the .deb installs with apt-get (when root or with
#      sudo), its binary runs a solve, and it is removed again.
# The build is portable (-DEF_NATIVE=OFF) and CPU-only (-DEF_ENABLE_CUDA=OFF, to keep CI short;
# EVALFORGE_CMAKE_ARGS adds to or overrides that). Prints the seconds each step took and the
# sizes of what was installed. Exit 0 when every check passed.
#   scripts/install-check.sh [--keep]   (--keep: leave the temporary folder for a look)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
keep=0
[[ ${1:-} == --keep ]] && keep=1
work=$(mktemp -d /tmp/evalforge-install-check.XXXXXX)
cleanup() { if ((keep)); then echo "install-check: left $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
src=$work/src prefix=$work/prefix venv=$work/venv
jobs=$(nproc)
step_start=$SECONDS
step() {  # step NAME: prints the time of the step before and starts NAME
  local now=$SECONDS
  [[ -n ${step_name:-} ]] && printf 'install-check: %-34s %4d s\n' "$step_name" $((now - step_start))
  step_name=$1 step_start=$now
  echo "== $1"
}
py=/usr/bin/python3
[[ -x $py ]] || py=$(command -v python3)

step "clean copy of HEAD"
# HEAD's tree; in a checkout with uncommitted changes to tracked or staged files, HEAD with them
# (git stash create makes that commit without touching the checkout). Untracked files are not
# copied. Outside git, the folder as it is.
mkdir -p "$src"
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  tree=$(git -C "$repo" stash create)
  git -C "$repo" archive "${tree:-HEAD}" | tar -x -C "$src"
else  # not a git checkout: the tree as it is, without build folders, runs or caches
  tar -C "$repo" --exclude='./build*' --exclude='./runs' --exclude='./.cache' --exclude='./.git' -c . | tar -x -C "$src"
fi
cp -r "$src/examples/cpp" "$work/example"

step "pip install (venv, CMake build)"
"$py" -m venv --system-site-packages "$venv"
export EVALFORGE_CMAKE_ARGS="-DEF_NATIVE=OFF -DEF_ENABLE_CUDA=OFF ${EVALFORGE_CMAKE_ARGS:-}"
unset EVALFORGE_BUILD_DIR  # the build folder is the copy's build-python/cmake, used below
CMAKE_BUILD_PARALLEL_LEVEL=$jobs "$venv/bin/python" -m pip install --no-build-isolation --no-index -q "$src"
build=$src/build-python/cmake

step "binary, cmake --install, cpack"
cmake --build "$build" --target evalforge -j "$jobs" >/dev/null
cmake --install "$build" --prefix "$prefix" >/dev/null
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb" >/dev/null)
deb=$(ls "$work"/deb/evalforge_*.deb)

step "delete the source and build trees"
rm -rf "$src"
[[ ! -e $src ]]

step "installed binary"
ef=$prefix/bin/evalforge
"$ef" --version
cd "$work"
"$ef" data generate --games 6000 --seed 7 --out games.txt >/dev/null
"$ef" data convert games.txt --out positions.obf --empties 18 >/dev/null
head -4 positions.obf > four.obf
# --ordering builtin fails when the network is not found (auto would solve without it).
"$ef" solve four.obf --ordering builtin --threads "$jobs" --no-timing | tee solve.txt
grep -q "ordering: built-in network" solve.txt
"$ef" score --data games.txt --shapes edax --moves 30 --threads "$jobs" | tee score.txt

step "C++ consumer (find_package)"
cmake -S "$work/example" -B "$work/example-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/example-build" -j "$jobs" >/dev/null
"$work/example-build/train_shape" games.txt 30 | tee consumer.txt
grep -q "test MSE  edax" consumer.txt
grep -qx "networks: $prefix/share/evalforge/networks" consumer.txt

step "Python: import, pytest"
(cd / && "$venv/bin/python" -c "import evalforge, sys; print('evalforge', evalforge.__version__, 'from', evalforge.__file__)")
# The suite of this checkout against the installed package and the installed binary.
(cd "$work" && env -u PYTHONPATH EF_TEST_INSTALLED=1 EF_EVALFORGE_BIN="$ef" EF_SOURCE_DIR="$repo" \
   "$venv/bin/python" -m pytest "$repo/python/tests" -q -p no:cacheprovider)

step "Debian package"
sudo=""
[[ $(id -u) -ne 0 ]] && sudo=sudo
if [[ -n $sudo ]] && ! sudo -n true 2>/dev/null; then
  echo "install-check: not root and no password-less sudo: the .deb was built ($deb) but not installed"
else
  dpkg-deb --info "$deb" | grep -E "Package|Version|Depends|Recommends|Installed-Size"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" >/dev/null
  /usr/bin/evalforge --version
  /usr/bin/evalforge solve four.obf --ordering builtin --threads "$jobs" --no-timing | tee deb-solve.txt
  cmp <(grep -v "^solved" solve.txt) <(grep -v "^solved" deb-solve.txt)
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq evalforge >/dev/null
fi
step "done"

echo "sizes: prefix $(du -sh "$prefix" | cut -f1) (binary $(du -h "$ef" | cut -f1), library $(du -h "$prefix"/lib/libevalforge.a | cut -f1)," \
  "share $(du -sh "$prefix/share/evalforge" | cut -f1)); .deb $(du -h "$deb" | cut -f1); venv package" \
  "$(du -sh "$("$venv/bin/python" -c 'import evalforge, os; print(os.path.dirname(evalforge.__file__))')" | cut -f1)"
echo "install-check: every install route works"
