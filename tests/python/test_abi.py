"""The package's ctypes structs against the C compiler's layout of the public structs (tests/abi/struct_layout.c
prints sizeof, alignof and every field's offset and size as JSON), and the public headers against that program, so
that neither the binding nor the program can drift from bf16x/bf16x.h. Also: a dgemm through the package under
`python3 -X dev` (whose allocator checks the bytes around every buffer)."""
import ctypes
import inspect
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

import bf16x
from bf16x import _lib

HEADERS = pathlib.Path(__file__).resolve().parents[2] / "include" / "bf16x"


@pytest.fixture(scope="module")
def c_layout():
    prog = os.environ.get("BF16X_STRUCT_LAYOUT")
    if not prog:
        pytest.fail("BF16X_STRUCT_LAYOUT is not set (run through CTest: python.pytest / python.abi)")
    return json.loads(subprocess.run([prog], check=True, capture_output=True, text=True).stdout)


def header_structs():
    """{name: [field, ...]} of every `typedef struct ... { ... } name;` in the public headers, as C sees them."""
    out = {}
    for h in sorted(HEADERS.glob("*.h")):
        text = re.sub(r"/\*.*?\*/", "", h.read_text(), flags=re.S)
        text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
        for body, name in re.findall(r"typedef\s+struct\s*\w*\s*\{(.*?)\}\s*(\w+)\s*;", text, flags=re.S):
            fields = []
            for decl in body.split(";"):
                decl = re.sub(r"BF16X_\w+\([^)]*\)", "", decl).strip()  # C++-only default member initializers
                if not decl:
                    continue
                # "type a, b" or "type* p": the declarators are the names after the type
                first, *rest = [d.strip() for d in decl.split(",")]
                fields.append(re.findall(r"\w+", first)[-1])
                fields += [re.findall(r"\w+", d)[-1] for d in rest]
            out[name] = fields
    return out


def package_structs():
    """Every ctypes.Structure class the package defines (in any of its modules, all imported by bf16x), by the C
    type it mirrors."""
    found = {}
    name = bf16x.__name__
    for module in (m for n, m in sorted(sys.modules.items()) if n == name or n.startswith(name + ".")):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, ctypes.Structure) and cls.__module__ == module.__name__:
                assert hasattr(cls, "c_name"), f"{cls.__module__}.{cls.__name__} does not say which C struct it is"
                found[cls.c_name] = cls
    return found


def test_layout_program_lists_every_public_struct_and_field(c_layout):
    headers = header_structs()
    assert headers, f"no structs found in {HEADERS}"
    assert sorted(c_layout) == sorted(headers)
    for name, fields in headers.items():
        assert [f["name"] for f in c_layout[name]["fields"]] == fields, name


def test_every_public_struct_has_a_ctypes_twin_with_its_layout(c_layout):
    twins = package_structs()
    assert sorted(twins) == sorted(c_layout), "ctypes structs of the package vs the public C structs"
    for name, c in c_layout.items():
        cls = twins[name]
        got = {"sizeof": ctypes.sizeof(cls), "alignof": ctypes.alignment(cls),
               "fields": [{"name": f, "offset": getattr(cls, f).offset, "size": getattr(cls, f).size}
                          for f, *_ in cls._fields_]}
        print(f"{name}: C sizeof {c['sizeof']}, ctypes {got['sizeof']}; fields (name, offset, size) "
              f"{[(f['name'], f['offset'], f['size']) for f in c['fields']]}")
        assert got == c, name


def test_options_init_fills_exactly_the_packages_struct():
    # Guard bytes after the struct: bf16x_options_init_sized writes no byte past the size it is given.
    class Guarded(ctypes.Structure):
        _fields_ = [("opt", _lib.Options), ("guard", ctypes.c_ubyte * 64)]

    lib = _lib.library()
    g = Guarded()
    ctypes.memset(ctypes.byref(g), 0xA5, ctypes.sizeof(g))
    assert lib.bf16x_options_init_sized(ctypes.byref(g.opt), ctypes.sizeof(_lib.Options)) == 0
    assert g.opt.size == ctypes.sizeof(_lib.Options) and bytes(g.guard) == b"\xa5" * 64
    assert (g.opt.mode, g.opt.engine, g.opt.split, g.opt.block_k, g.opt.complex_method) == (0, 0, 0, 0, 0)
    assert not g.opt.stats
    # what the package passes to every call
    opt = _lib.options(lib, 6, 0)
    assert (opt.size, opt.mode) == (ctypes.sizeof(_lib.Options), 6)


def test_dgemm_and_sgemm_under_python_dev_mode():
    # The allocator of -X dev checks the guard bytes around every block: an overrun aborts the process.
    code = ("import numpy as np, bf16x\n"
            "a = np.ones((4, 4))\n"
            "assert (bf16x.dgemm(a, a) == 4).all() and (bf16x.sgemm(a.astype('f4'), a.astype('f4')) == 4).all()\n"
            "assert (bf16x.zgemm(a, a * 1j) == 4j).all() and (bf16x.matmul(np.stack([a, a]), a) == 4).all()\n"
            "print('ok')\n")
    r = subprocess.run([sys.executable, "-X", "dev", "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout == "ok\n" and r.stderr == "", (r.returncode, r.stdout, r.stderr)


def header_prototypes(header):
    """{function: [parameter declaration, ...]} of every BF16X_API function of a public header."""
    text = re.sub(r"/\*.*?\*/", "", (HEADERS / header).read_text(), flags=re.S)
    return {name: [" ".join(p.split()) for p in params.split(",")]
            for name, params in re.findall(r"BF16X_API\s+int\s+(\w+)\s*\(([^;]*?)\)\s*;", text, flags=re.S)}


def ctypes_of(param):
    """The ctypes type the package passes for one C parameter declaration ("const double* a", "int64_t lda")."""
    t = re.sub(r"\s*\b\w+$", "", param).replace("const ", "").strip()
    if t.endswith("*"):
        return ctypes.POINTER(_lib.Options) if t.startswith("bf16x_options") else ctypes.c_void_p
    enums = ("bf16x_layout", "bf16x_uplo", "bf16x_transpose", "bf16x_side", "bf16x_diag")
    return {**{e: ctypes.c_int for e in enums}, "int64_t": ctypes.c_int64, "float": ctypes.c_float,
            "double": ctypes.c_double, "bf16x_complex_float": _lib.ComplexFloat,
            "bf16x_complex_double": _lib.ComplexDouble}[t]


def test_level3_argtypes_are_the_headers_prototypes():
    # The package declares the level-3 entry points itself (ctypes has no header): every function of
    # bf16x/level3.h, each argument of the C type the header gives.
    protos = header_prototypes("level3.h")
    assert len(protos) == 30 and sorted(protos) == sorted(_lib.LEVEL3)
    for name, params in protos.items():
        restype, argtypes = _lib.LEVEL3[name]
        assert restype is ctypes.c_int and argtypes == [ctypes_of(p) for p in params], name
    lib = _lib.library()
    for name in protos:
        assert getattr(lib, name).argtypes == _lib.LEVEL3[name][1], f"{name} not declared on libbf16x"
