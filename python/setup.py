# Builds out of tree: setuptools' build/ and bf16x.egg-info go to a temporary directory, not next to this file,
# so `pip install ./python` leaves the source tree as it was (tests/python/install.sh checks).
import atexit
import shutil
import tempfile

import setuptools

_scratch = tempfile.mkdtemp(prefix="bf16x-build-")
atexit.register(shutil.rmtree, _scratch, ignore_errors=True)
setuptools.setup(options={"build": {"build_base": _scratch}, "egg_info": {"egg_base": _scratch}})
