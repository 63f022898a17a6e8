"""Builds dmlcpu._core: the C core in csrc/ plus the Cython wrapper, as one extension.

The C core is compiled into static libraries that the extension links: `dmlcpu_core` (every
baseline translation unit) and one library per instruction set (csrc/kernels/*_<isa>.c) with
that ISA's flags, so only the dispatched kernels use instructions beyond the baseline and one
wheel runs on every CPU of its architecture. Which ISA libraries exist is decided by compiling a
probe with the configured compiler (what it targets, not what this machine is), so
cross-compilers (CC=aarch64-linux-gnu-gcc, Windows ARM64, macOS arm64 on an x86-64 host) get
the right kernels. Flags follow the compiler's type (MSVC or GCC-like); the core builds with
warnings as errors, Cython's generated _core.c with its own looser flags. DMLCPU_SANITIZE=1
builds with AddressSanitizer and UndefinedBehaviorSanitizer. docs/architecture.md has the map.
"""
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from glob import glob

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

try:
    from setuptools.errors import CompileError
except ImportError:  # setuptools < 59
    from distutils.errors import CompileError
try:
    from setuptools.modified import newer_group
except ImportError:  # setuptools < 69
    from distutils.dep_util import newer_group

# Target architectures the probe asks about: what their compilers predefine.
TARGET_TESTS = {
    "x86_64": "defined(__x86_64__) || defined(_M_X64)",
    "aarch64": "defined(__aarch64__) || defined(_M_ARM64)",
}

# Per target: the ISA libraries built for it, as (GCC-like flags, MSVC flags). Building one
# defines DMLCPU_BUILD_<ISA> for the whole core, which is how csrc/dispatch.c knows its tables
# exist. A new ISA is its csrc/kernels/*_<isa>.c units, one line here and one in dispatch.c.
ISA_FLAGS = {
    "x86_64": {
        "avx2": (["-mavx2", "-mfma", "-mf16c"], ["/arch:AVX2"]),
        "avx512": (["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx2", "-mfma", "-mf16c"],
                   ["/arch:AVX512"]),
        # a sub-feature of avx512 (its units fill avx512 slots when the CPU has VBMI too)
        "avx512vbmi": (["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512vbmi", "-mavx2",
                        "-mfma", "-mf16c"], ["/arch:AVX512"]),
    },
    # NEON is the aarch64 baseline: its units need no flag
    "aarch64": {"neon": ([], [])},
}

INCLUDE_DIRS = ["csrc/include", "csrc"]
# Kernel bodies live in headers: an edit to one must rebuild the libraries.
HEADERS = sorted(glob("csrc/**/*.h", recursive=True))
SANITIZE = os.environ.get("DMLCPU_SANITIZE") == "1"
SANITIZER_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
                   "-fno-omit-frame-pointer", "-g", "-O1"]


def isa_of(source):
    """'avx2' for csrc/kernels/copy_avx2.c; None for a baseline unit."""
    stem = os.path.splitext(os.path.basename(source))[0]
    if os.path.dirname(source).endswith("kernels") and "_" in stem:
        isa = stem.rsplit("_", 1)[1]
        return None if isa == "scalar" else isa
    return None


def core_sources():
    return sorted(glob("csrc/*.c") + glob("csrc/kernels/*.c"))


def compiler_target(compiler, work):
    """The architecture the configured compiler builds for (a key of TARGET_TESTS), or None
    (another architecture, or several at once as in a macOS universal2 build)."""
    os.makedirs(work, exist_ok=True)
    for target, test in TARGET_TESTS.items():
        probe = os.path.join(work, "target_is_%s.c" % target)
        with open(probe, "w") as f:
            f.write("#if !(%s)\n#error dmlcpu probe: the compiler does not target %s\n#endif\n"
                    "int dmlcpu_target_probe;\n" % (test, target))
        try:
            compiler.compile([probe], output_dir=work)
        except CompileError:
            continue
        return target
    return None


def core_flags(msvc):
    if msvc:
        # C11 atomics (dispatch table pointer, thread count) need this switch in MSVC 17.5+
        return ["/O2", "/std:c11", "/experimental:c11atomics", "/W3"]
    # -ffp-contract=off: scans must round every step exactly as a sequential loop does.
    flags = ["-O3", "-std=c11", "-ffp-contract=off", "-fno-strict-aliasing",
             "-Wall", "-Wextra", "-Werror"]
    return flags + SANITIZER_FLAGS if SANITIZE else flags


def wrapper_flags(msvc):
    """Cython's generated _core.c: its unused helpers are not ours to remove."""
    if msvc:
        return ["/O2"]
    flags = ["-O3", "-fno-strict-aliasing", "-Wall", "-Wextra", "-Wno-unused-function"]
    return flags + SANITIZER_FLAGS if SANITIZE else flags


def link_flags(msvc):
    if msvc:
        return []
    flags = list(SANITIZER_FLAGS) if SANITIZE else []
    return flags + ["-pthread"] if sys.platform.startswith("linux") else flags


class BuildCoreAndExt(build_ext):
    """Builds the C core's static libraries with per-library flags, then the extension."""

    def build_extensions(self):
        msvc = self.compiler.compiler_type == "msvc"
        target = compiler_target(self.compiler, os.path.join(self.build_temp, "probe"))
        isas = ISA_FLAGS.get(target, {})
        self.announce("dmlcpu: the compiler targets %s; ISA libraries: %s"
                      % (target or "another architecture", " ".join(isas) or "none"), level=3)
        macros = [("DMLCPU_BUILD_" + isa.upper(), "1") for isa in isas]
        sources = core_sources()
        # the baseline library first: it references the ISA libraries' kernel tables
        libraries = [("dmlcpu_core", [s for s in sources if isa_of(s) is None], [])]
        for isa, (gcc, msvc_flags) in isas.items():
            libraries.append(("dmlcpu_" + isa, [s for s in sources if isa_of(s) == isa],
                              msvc_flags if msvc else gcc))
        built = [self.build_core_library(name, units, core_flags(msvc) + flags, macros)
                 for name, units, flags in libraries]
        for ext in self.extensions:
            ext.libraries = [name for name, _, _ in libraries] + ext.libraries
            ext.library_dirs.append(self.build_temp)
            ext.depends = ext.depends + built  # a rebuilt library relinks the extension
            ext.extra_compile_args = wrapper_flags(msvc)
            ext.extra_link_args = link_flags(msvc)
        super().build_extensions()

    def build_core_library(self, name, sources, cflags, macros):
        """One static library from sources, all compiled with cflags; skipped when newer than
        every source and header. Returns its path."""
        path = os.path.join(self.build_temp, self.compiler.library_filename(name))
        if not (self.force or newer_group(sources + HEADERS, path)):
            return path

        def compile_one(source):
            return self.compiler.compile([source], output_dir=self.build_temp, macros=macros,
                                         include_dirs=INCLUDE_DIRS, extra_postargs=cflags,
                                         debug=self.debug)

        jobs = self.parallel if isinstance(self.parallel, int) and self.parallel > 1 else 1
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            objects = [obj for objs in pool.map(compile_one, sources) for obj in objs]
        if os.path.exists(path):
            os.remove(path)  # `ar` would keep the members of units since deleted or renamed
        self.compiler.create_static_lib(objects, name, output_dir=self.build_temp,
                                        debug=self.debug)
        return path


setup(
    ext_modules=cythonize(
        [Extension("dmlcpu._core", sources=["src/dmlcpu/_core.pyx"], include_dirs=INCLUDE_DIRS,
                   depends=HEADERS + core_sources(),
                   define_macros=[("NPY_NO_DEPRECATED_API", "0")])],
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True,
                             "embedsignature": True},
    ),
    cmdclass={"build_ext": BuildCoreAndExt},
)
