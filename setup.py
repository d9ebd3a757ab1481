"""Builds the Cython cores (every engine_core/**/_*.pyx becomes an extension
module, its C generated into build/cython, never into the source tree) and
lists the packages: engine_core, ai, services, and the generated API package
``meeple`` whose sources sit beside their .proto files in protos/meeple.

Everything else about the package lives in pyproject.toml.
"""

from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

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


setup(
    ext_modules=cython_extensions(),
    packages=find_packages(include=["engine_core*", "ai*", "services*"]) + find_packages("protos"),
    package_dir={"meeple": "protos/meeple"},
)
