// Where the files the program ships beside its code (the networks/ folder: the solver's
// move-ordering networks, the Tic-Tac-Toe agents) are found at run time, so that an installed
// binary, a Python package and the build tree each find their own copy without a path of the
// build tree (docs/install.md).
#pragma once
#include <filesystem>

namespace ef {

// The networks folder, the first of:
//   1. the environment variable EF_NETWORKS_DIR (an error naming it when it is not a folder);
//   2. the folder a front end set with set_networks_dir (the Python package sets its own);
//   3. share/evalforge/networks beside the bin/ folder of the program that holds this code (an
//      installed copy: PREFIX/bin/evalforge finds PREFIX/share/evalforge/networks); when a
//      shared object holds it (the Python module), beside that object's folder instead;
//   4. networks/ of the source tree the library was built from (the build tree).
// When none exists, the last (a load then names the missing file). A program of your own that
// links the installed library and lives elsewhere names the installed folder with
// set_networks_dir: find_package(evalforge) sets evalforge_NETWORKS_DIR to it.
std::filesystem::path networks_dir();

// Rule 2 above: a front end that ships the networks inside its own package names them here.
void set_networks_dir(const std::filesystem::path& folder);

}  // namespace ef
