"""Builds the Python package: the extension evalforge._evalforge through CMake (pyproject.toml).

The CMake build is the project's own (CMakeLists.txt) with only the module's target; its
folder is build-python/ beside this file (kept between installs, so a second install compiles
only what changed). EVALFORGE_CMAKE_ARGS adds arguments, e.g. "-DEF_ENABLE_CUDA=OFF" or
"-DEF_NATIVE=OFF" for a wheel that runs on other x86-64 machines. The networks/ folder is
copied into the package, where the module finds it (docs/install.md).
"""
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name: str):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        target = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        build_dir = pathlib.Path(os.environ.get("EVALFORGE_BUILD_DIR", ROOT / "build-python" / "cmake")).resolve()
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
            "-DBUILD_TESTING=OFF", "-DEF_BUILD_BENCH=OFF", "-DEF_PYTHON=ON", "-DEF_PYTHON_REQUIRED=ON",
            f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        if shutil.which("ninja") and not (build_dir / "CMakeCache.txt").exists():
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("EVALFORGE_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "evalforge_python", "-j", jobs], check=True)
        # The module for this interpreter (a reused build folder may hold another Python's too).
        built = build_dir / "python" / "evalforge" / ("_evalforge" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not built.exists():
            raise RuntimeError(f"the CMake build in {build_dir} made no {built.name} for {sys.executable}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)
        networks = target.parent / "networks"
        if networks.exists():
            shutil.rmtree(networks)
        shutil.copytree(ROOT / "networks", networks)


setup(
    ext_modules=[CMakeExtension("evalforge._evalforge")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(ROOT / "build-python")}},
)
