"""Builds and packages trilinear3d: libtrilinear3d (CMake, from the repository root) and the PyTorch
extension trilinear3d._C linked against it.

    python3 -m pip install --no-build-isolation ./python      # into the environment that has torch
    python3 -m pip wheel --no-build-isolation --no-deps ./python -w dist

--no-build-isolation: the extension is compiled against the torch of the installing environment (its
headers and ABI), so pip must not build it against a separately downloaded torch.

build_ext first configures and builds the library (Release, no tests/examples/bench) in
TRILINEAR3D_LIB_BUILD_DIR (default: <repository>/build-py/lib, reused between builds), then compiles the
extension (in <repository>/build-py/setuptools-torch-<version>) and copies libtrilinear3d.so.0 into the
package folder. The extension finds it through an
rpath of $ORIGIN, so the installed package (and the wheel) needs no LD_LIBRARY_PATH.
Environment: TRILINEAR3D_LIB_DIR=<absolute path of a CMake build folder of this repository, its
libtrilinear3d.so.0 built> skips the CMake build and bundles that library (CI passes its main Release build);
MAX_JOBS sets the build's parallelism (default: the CPU count).
"""
import os
import shutil
import subprocess
import sysconfig

from setuptools import setup

import torch
from torch.utils.cpp_extension import BuildExtension, CppExtension, include_paths

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
os.chdir(HERE)  # the paths below are relative to python/
LIB_DIR = os.environ.get("TRILINEAR3D_LIB_DIR") or os.environ.get(
    "TRILINEAR3D_LIB_BUILD_DIR", os.path.join(ROOT, "build-py", "lib"))
LIB_SONAME = "libtrilinear3d.so.0"
TORCH_VERSION = torch.__version__.split("+")[0]
# torch 2's headers need C++20 (its cpp_extension passes it too); Debian's 1.13 builds with C++17.
CXX_STD = "-std=c++20" if int(TORCH_VERSION.split(".")[0]) >= 2 else "-std=c++17"


def _version():
    with open(os.path.join(HERE, "trilinear3d", "__init__.py")) as f:
        for line in f:
            if line.startswith("__version__"):
                return line.split("=")[1].strip().strip("\"'")
    raise RuntimeError("trilinear3d/__init__.py has no __version__")


class BuildWithLibrary(BuildExtension):
    """build_ext that builds libtrilinear3d with CMake first and bundles it into the package."""

    def run(self):
        jobs = os.environ.get("MAX_JOBS") or str(os.cpu_count() or 1)
        if os.environ.get("TRILINEAR3D_LIB_DIR"):
            if not os.path.isfile(os.path.join(LIB_DIR, LIB_SONAME)):
                raise RuntimeError(f"TRILINEAR3D_LIB_DIR={LIB_DIR!r} has no {LIB_SONAME}: build the library there "
                                   "first (cmake --build), or unset TRILINEAR3D_LIB_DIR to let setup.py build it")
        else:
            subprocess.check_call([
                "cmake", "-S", ROOT, "-B", LIB_DIR, "-DCMAKE_BUILD_TYPE=Release", "-DTRILINEAR3D_BUILD_TESTS=OFF",
                "-DTRILINEAR3D_BUILD_EXAMPLES=OFF", "-DTRILINEAR3D_BUILD_BENCH=OFF"], stdout=subprocess.DEVNULL)
            subprocess.check_call(["cmake", "--build", LIB_DIR, "-j", jobs])
        super().run()
        # Next to the extension in the build folder (what the wheel or the install copies) and, for
        # `pip install -e` / build_ext --inplace, in the source package too.
        targets = [os.path.join(self.build_lib, "trilinear3d")]
        if self.inplace:
            targets = [os.path.join(HERE, "trilinear3d")]
        for target in targets:
            os.makedirs(target, exist_ok=True)
            shutil.copyfile(os.path.join(LIB_DIR, LIB_SONAME), os.path.join(target, LIB_SONAME))
            with open(os.path.join(target, "_build_info.py"), "w") as f:
                f.write('"""Written by setup.py: the torch the extension was compiled against."""\n')
                f.write(f"TORCH_VERSION = {TORCH_VERSION!r}\n")

    def get_outputs(self):
        outputs = super().get_outputs()
        package = os.path.join(self.build_lib, "trilinear3d")
        return outputs + [os.path.join(package, LIB_SONAME), os.path.join(package, "_build_info.py")]


setup(
    name="trilinear3d",
    version=_version(),
    description="CANN's aclnnUpsampleTrilinear3d(Backward) on the CPU as a PyTorch extension",
    long_description="Trilinear upsampling (forward and backward) for PyTorch CPU tensors, backed by "
    "libtrilinear3d; trilinear3d.enable() makes torch's own upsample_trilinear3d use it.",
    license="See the repository",
    python_requires=">=3.8",
    packages=["trilinear3d"],
    ext_modules=[
        CppExtension(
            name="trilinear3d._C",
            sources=[os.path.join("csrc", "trilinear3d_ext.cpp")],
            include_dirs=[os.path.join(ROOT, "include")],
            library_dirs=[LIB_DIR],
            libraries=["trilinear3d"],
            # torch's and Python's headers as system headers: warnings are reported for our code only.
            extra_compile_args=[CXX_STD, "-O2", "-g0", "-Wall", "-Wextra"]
            + [f"-isystem{d}" for d in include_paths() + [sysconfig.get_paths()["include"]]],
            extra_link_args=["-Wl,-rpath,$ORIGIN"],
        )
    ],
    cmdclass={"build_ext": BuildWithLibrary},
    # One build folder per torch: objects compiled against one torch's headers never link with another's.
    options={"build": {"build_base": os.path.join(ROOT, "build-py", f"setuptools-torch-{TORCH_VERSION}")}},
    zip_safe=False,
)
