"""The package's build, with its numba kernels compiled into it (issue 45: first use in seconds).

setuptools' ``build_py`` copies the package to the build folder; this one then runs
``shapemill compile`` on that copy, its engine part and its tables part in two processes at
once (a machine's two cores), so that numba writes its cache (``__pycache__/*.nbi``,
``*.nbc``) beside the built sources and the wheel carries it. numba keys the cache on each
source file's content, the Python and numba versions and the CPU, so the installed copy
loads it when it runs on the machine that built it (``pip install .``, or an sdist), and
compiles on first use as before anywhere else. An editable install builds nothing here;
``SHAPEMILL_COMPILE=0`` skips the compile; a failed compile leaves an ordinary package. A
build folder reused with the same sources keeps its compiled kernels (``pip install .`` again).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from setuptools.command.build_py import build_py

#: Set to 0 to build without compiling the kernels (a wheel for other machines).
SKIP_VARIABLE = "SHAPEMILL_COMPILE"


#: One compile process of the build: ``shapemill compile --part PART`` (whose ``main`` reads
#: and saves numba's cache under a lock, ``compiling.lock_cache``: the two parts share go/'s
#: kernels and compile at once).
COMPILE = "from shapemill.cli import main; main()"


class BuildWithKernels(build_py):
    """``build_py``, then the kernels compiled into the build folder."""

    def run(self) -> None:
        super().run()
        if self.editable_mode or os.environ.get(SKIP_VARIABLE) == "0":
            return
        built = Path(self.build_lib)
        stamp = built.parent / "shapemill-kernels.stamp"  # beside the build folder, not in the wheel
        sources = _sources_digest(built)
        if stamp.exists() and stamp.read_text() == sources:
            return  # a reused build folder whose kernels were compiled from these very sources
        for stale in built.rglob("__pycache__/*.nb[ic]"):  # older sources' kernels: a caller may be stale
            stale.unlink()
        stamp.unlink(missing_ok=True)
        env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}  # the cache beside the sources
        # the built copy first; pip's isolated build finds its own packages through PYTHONPATH too
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.abspath(self.build_lib), env.get("PYTHONPATH")]))
        print("shapemill: compiling the kernels for this machine (two processes, about two minutes)", file=sys.stderr)
        parts = [subprocess.Popen([sys.executable, "-c", COMPILE, "compile", "--part", part], env=env,
                                  cwd=self.build_lib) for part in ("engine", "tables")]
        codes = [part.wait() for part in parts]  # both: the wheel must not be packed while one still writes
        if codes == [0, 0]:
            stamp.write_text(sources)
        else:
            print("shapemill: the kernels were not all compiled; the rest compile on first use", file=sys.stderr)


def _sources_digest(built: Path) -> str:
    """A digest of every Python source of the built package (names and contents): numba checks
    each kernel's own file, not the files of the kernels it calls, so the build keeps its
    compiled kernels only when no source changed at all."""
    digest = hashlib.sha256()
    for path in sorted(built.rglob("*.py")):
        digest.update(str(path.relative_to(built)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
