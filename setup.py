"""Builds the Cython cores: every engine_core/**/_*.pyx becomes an extension module.

Everything else about the package lives in pyproject.toml. The generated C
files go to build/cython, never into the source tree.
"""

from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent


def cython_extensions() -> list[Extension]:
    extensions = []
    for pyx in sorted(HERE.glob("engine_core/**/_*.pyx")):
        relative = pyx.relative_to(HERE).with_suffix("")
        extensions.append(
            Extension(
                ".".join(relative.parts),
                [str(relative) + ".pyx"],
                extra_compile_args=["-O3"],
            )
        )
    return cythonize(
        extensions,
        build_dir="build/cython",
        compiler_directives={
            "language_level": "3",
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )


setup(ext_modules=cython_extensions())
