"""Builds the tenferro extension module with the project's CMake for pip
(`pip install --no-build-isolation ./python`; see pyproject.toml). The module
is the one `cmake --build` makes (python/CMakeLists.txt): C against the
CPython API, linked to the static library; nothing is compiled here."""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(tenferro VERSION ([0-9.]+)", f.read()).group(1)


class CMakeBuild(build_ext):
    """Configures and builds the target tenferro_python, then copies the .so."""

    def build_extension(self, ext):
        if not os.path.exists(os.path.join(ROOT, "src", "core")):
            raise RuntimeError("python/ must be built inside the tenferro source tree "
                               f"(no {ROOT}/src/core)")
        build = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        subprocess.check_call([
            "cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
            "-DTFR_BUILD_TESTS=OFF", "-DTFR_BUILD_BENCH=OFF", "-DTFR_PYTHON=ON",
            f"-DPython3_EXECUTABLE={sys.executable}"])
        subprocess.check_call(["cmake", "--build", build, "--target", "tenferro_python",
                               "--parallel", str(os.cpu_count() or 1)])
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(build, "python", os.path.basename(target)), target)


setup(version=version(), packages=[], py_modules=[],
      ext_modules=[Extension("tenferro", sources=[])],
      cmdclass={"build_ext": CMakeBuild})
