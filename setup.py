"""Builds dmlcpu._core: the C core in csrc/ plus the Cython wrapper, as one extension.

ISA-specific translation units (csrc/kernels/*_<isa>.c) get their ISA flags, and only they do:
the rest of the extension is compiled for the baseline so one wheel runs on every CPU of its
architecture. DMLCPU_SANITIZE=1 builds with AddressSanitizer and UndefinedBehaviorSanitizer.
"""
import os
import platform
import sys
from glob import glob

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


X86_64_NAMES = ("x86_64", "amd64", "x64")


def target_is_x86_64(plat_name):
    """Whether the extension is being built FOR x86-64, cross-compiles included: cibuildwheel
    builds macOS arm64 wheels with ARCHFLAGS="-arch arm64" and Windows ARM64 wheels with
    plat_name win-arm64 on x86-64 hosts."""
    archflags = os.environ.get("ARCHFLAGS", "")
    if sys.platform == "darwin" and archflags:
        return "x86_64" in archflags and "arm64" not in archflags
    if plat_name:
        return any(name in plat_name.lower() for name in X86_64_NAMES)
    return platform.machine().lower() in X86_64_NAMES


def is_isa_unit(source):
    return source.endswith(("_avx2.c", "_avx512.c"))


# Per-file flags, keyed by the suffix of the translation unit's name.
GCC_ISA_FLAGS = {
    "_avx2.c": ["-mavx2", "-mfma", "-mf16c"],
    "_avx512.c": ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx2", "-mfma", "-mf16c"],
}
MSVC_ISA_FLAGS = {
    "_avx2.c": ["/arch:AVX2"],
    "_avx512.c": ["/arch:AVX512"],
}


def isa_flags_for(source, msvc):
    table = MSVC_ISA_FLAGS if msvc else GCC_ISA_FLAGS
    for suffix, flags in table.items():
        if source.endswith(suffix):
            return flags
    return []


def core_sources():
    """Every C source; build_extensions drops the x86 ISA units when the target is not x86-64."""
    sources = sorted(glob("csrc/*.c")) + sorted(glob("csrc/kernels/*_scalar.c"))
    sources += sorted(glob("csrc/kernels/*_avx2.c")) + sorted(glob("csrc/kernels/*_avx512.c"))
    return [os.path.relpath(s, HERE) if os.path.isabs(s) else s for s in sources]


class BuildExtPerFileFlags(build_ext):
    """Adds ISA flags to the ISA translation units only (setuptools has no per-file flags)."""

    def build_extensions(self):
        with_x86_kernels = target_is_x86_64(self.plat_name)
        for ext in self.extensions:
            if with_x86_kernels:
                ext.define_macros.append(("DMLCPU_WITH_X86_KERNELS", "1"))
            else:
                ext.sources = [src for src in ext.sources if not is_isa_unit(src)]
        compiler = self.compiler
        msvc = compiler.compiler_type == "msvc"
        if msvc:
            original_compile = compiler.compile

            def compile_per_file(sources, *args, **kwargs):
                objects = []
                for source in sources:
                    extra = list(kwargs.get("extra_postargs") or []) + isa_flags_for(source, True)
                    kw = dict(kwargs, extra_postargs=extra)
                    objects += original_compile([source], *args, **kw)
                return objects

            compiler.compile = compile_per_file
        else:
            original = compiler._compile

            def _compile(obj, src, ext, cc_args, extra_postargs, pp_opts):
                extra = list(extra_postargs or []) + isa_flags_for(src, False)
                return original(obj, src, ext, cc_args, extra, pp_opts)

            compiler._compile = _compile
        super().build_extensions()


def extension():
    msvc = sys.platform == "win32"
    if msvc:
        # C11 atomics (dispatch table pointer, thread count) need this switch in MSVC 17.5+
        cflags = ["/O2", "/std:c11", "/experimental:c11atomics"]
        ldflags = []
    else:
        # -ffp-contract=off: scans must round every step exactly as a sequential loop does.
        cflags = ["-O3", "-std=c11", "-ffp-contract=off", "-fno-strict-aliasing",
                  "-Wall", "-Wextra", "-Wno-unused-function"]
        ldflags = []
        if os.environ.get("DMLCPU_SANITIZE") == "1":
            san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
                   "-fno-omit-frame-pointer", "-g", "-O1"]
            cflags += san
            ldflags += san
        if sys.platform.startswith("linux"):
            ldflags += ["-pthread"]
    return Extension(
        "dmlcpu._core",
        sources=["src/dmlcpu/_core.pyx"] + core_sources(),
        include_dirs=["csrc/include", "csrc"],
        # headers hold kernel bodies: an edit to one must rebuild the extension
        depends=sorted(glob("csrc/**/*.h", recursive=True)),
        extra_compile_args=cflags,
        extra_link_args=ldflags,
        define_macros=[("NPY_NO_DEPRECATED_API", "0")],
    )


setup(
    ext_modules=cythonize(
        [extension()],
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True,
                             "embedsignature": True},
    ),
    cmdclass={"build_ext": BuildExtPerFileFlags},
)
