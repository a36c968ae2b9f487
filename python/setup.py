"""Builds the trilinear3d PyTorch extension (trilinear3d._C) against an already built libtrilinear3d.

Normally run by tools/install_python.sh, which builds the library with CMake first and then calls

    TRILINEAR3D_LIB_DIR=<dir with libtrilinear3d.so> python3 setup.py build_ext --build-lib B --build-temp T

The extension finds libtrilinear3d.so.0 through an rpath of $ORIGIN: the install script copies the
library next to it, inside the trilinear3d package folder.
"""
import os

from setuptools import setup
import sysconfig

from torch.utils.cpp_extension import BuildExtension, CppExtension, include_paths

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
os.chdir(HERE)  # the paths below are relative to python/
LIB_DIR = os.environ.get("TRILINEAR3D_LIB_DIR", os.path.join(ROOT, "build-py", "lib"))

setup(
    name="trilinear3d",
    version="0.1.0",
    description="CANN's aclnnUpsampleTrilinear3d(Backward) on the CPU as a PyTorch extension",
    packages=["trilinear3d"],
    ext_modules=[
        CppExtension(
            name="trilinear3d._C",
            sources=[os.path.join("csrc", "trilinear3d_ext.cpp")],
            include_dirs=[os.path.join(ROOT, "include")],
            library_dirs=[LIB_DIR],
            libraries=["trilinear3d"],
            # torch's and Python's headers as system headers: warnings are reported for our code only.
            extra_compile_args=["-std=c++17", "-O2", "-g0", "-Wall", "-Wextra"]
            + [f"-isystem{d}" for d in include_paths() + [sysconfig.get_paths()["include"]]],
            extra_link_args=["-Wl,-rpath,$ORIGIN"],
        )
    ],
    cmdclass={"build_ext": BuildExtension},
    zip_safe=False,
)
