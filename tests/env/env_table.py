"""The environment has one list (src/env/variables.cpp) and one table (README.md, "Environment"); this keeps them and
the code together: the table names exactly the library's variables, every BF16X_* name the library reads through
env/env_vars.hpp is in the list, and nothing in src/ reads the environment another way (getenv)."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
listed = dict(re.findall(r'\{"(BF16X_[A-Z0-9_]+)", "(\w+)"\}', (root / "src/env/variables.cpp").read_text()))
library = {n for n, who in listed.items() if who == "library"}

readme = (root / "README.md").read_text()
section = readme.split("## Environment", 1)[1].split("\n## ", 1)[0]
table = set(re.findall(r"^\| `(BF16X_[A-Z0-9_]+)` \|", section, re.M))

read = set()
getenv = []
for f in sorted((root / "src").rglob("*.[ch]pp")):
    text = f.read_text()
    for call in re.finditer(r"envvar::\w+\(\s*[^,]+,\s*\"(BF16X_[A-Z0-9_]+)\"", text):
        read.add(call.group(1))
    if f.name != "env_vars.cpp" and re.search(r"\b(secure_)?getenv\s*\(", text):
        getenv.append(str(f.relative_to(root)))
read |= set(re.findall(r'mode_from_env\(src, "(BF16X_[A-Z0-9_]+)"', (root / "src/settings/env.cpp").read_text()))

problems = []
if table != library:
    problems.append(f"README's table and the list differ: only in the table {sorted(table - library)}, "
                    f"only in the list {sorted(library - table)}")
if read - library:
    problems.append(f"read by the library but not listed as its own: {sorted(read - library)}")
if library - read:
    problems.append(f"listed as the library's but never read: {sorted(library - read)}")
if getenv:
    problems.append(f"getenv outside src/env/env_vars.cpp: {getenv}")
print(f"{len(library)} library variables, {len(listed) - len(library)} of the package, scripts and tests; "
      f"README's table: {len(table)}; read through env/: {len(read)}")
for p in problems:
    print("FAIL", p)
sys.exit(1 if problems else 0)
