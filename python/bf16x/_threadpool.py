"""A threadpoolctl controller for bf16x, so threadpool_info() lists it and threadpool_limits(n, "blas") limits it.

threadpoolctl >= 3.2 has a public registration API (threadpoolctl.register). Debian 12 ships 3.1.0, which has
none: its ThreadpoolController finds libraries by matching loaded file names against the module-level table
_SUPPORTED_LIBRARIES and instantiates the class named there from the module's globals. With 3.1 the controller
is added to that table and module namespace; this uses threadpoolctl internals and may break with other 3.1.x.
"""
import ctypes

try:
    import threadpoolctl
except ImportError:  # optional dependency
    threadpoolctl = None

PREFIX = "libbf16x"  # libbf16x.so.* and the BLAS shim libbf16x_blas.so.*

if threadpoolctl is not None:

    class Bf16xController(threadpoolctl.LibController):
        """One loaded bf16x (libbf16x.so or libbf16x_blas.so): bf16x_get/set_num_threads."""
        user_api = "blas"
        internal_api = "bf16x"
        filename_prefixes = (PREFIX,)
        check_symbols = ("bf16x_get_num_threads", "bf16x_set_num_threads")

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            # Unset (0) means OpenMP's default; restoring that count should unset it again, not pin it.
            self._default = None if self._runtime_set() else self.get_num_threads()

        def _runtime_set(self):
            self._dynlib.bf16x_get_config.restype = ctypes.c_char_p
            return b"(bf16x_set_num_threads)" in self._dynlib.bf16x_get_config()

        def get_num_threads(self):
            return self._dynlib.bf16x_get_num_threads()

        def set_num_threads(self, num_threads):
            n = 0 if num_threads == self._default else int(num_threads)
            return self._dynlib.bf16x_set_num_threads(n)

        def get_version(self):
            self._dynlib.bf16x_version.restype = ctypes.c_char_p
            return self._dynlib.bf16x_version().decode()


def register():
    """Makes threadpoolctl aware of bf16x; False if threadpoolctl is not installed."""
    if threadpoolctl is None:
        return False
    if hasattr(threadpoolctl, "register"):  # 3.2 and later
        threadpoolctl.register(Bf16xController)
        return True
    table = threadpoolctl._SUPPORTED_LIBRARIES
    if "Bf16xController" not in table:
        setattr(threadpoolctl, "Bf16xController", Bf16xController)
        table["Bf16xController"] = {"user_api": Bf16xController.user_api,
                                    "internal_api": Bf16xController.internal_api,
                                    "filename_prefixes": Bf16xController.filename_prefixes,
                                    "check_symbols": Bf16xController.check_symbols}
        # The lists threadpool_limits validates its arguments against (the prefix form: {"libbf16x": 1}).
        for name, value in (("_ALL_PREFIXES", PREFIX), ("_ALL_INTERNAL_APIS", "bf16x"),
                            ("_ALL_BLAS_LIBRARIES", "bf16x")):
            lst = getattr(threadpoolctl, name, None)
            if isinstance(lst, list) and value not in lst:
                lst.append(value)
    return True
