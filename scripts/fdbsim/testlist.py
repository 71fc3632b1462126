"""fdb-sim: which tests: FoundationDB's own list (tests/CMakeLists.txt), which test files can run here, and what --tests names."""
import dataclasses
import glob
import json
import os
import re

from .config import DEFAULT_TESTS, NAMED, ROCKSDB_ENGINES, UsageError

# ---- FoundationDB's own test list: tests/CMakeLists.txt ---------------------------------------------------

@dataclasses.dataclass
class ListedTest:
    """One add_fdb_test() of tests/CMakeLists.txt, as it applies to one of its files."""
    files: tuple  # every file of the test, relative to tests/ (several: a multi-part restart test)
    ignore: bool = False
    unit: bool = False
    long_running: bool = False
    active: bool = True  # inside if() branches this build's configuration takes
    conditions: tuple = ()  # the if() conditions around it, as written
    comment: str = ""  # the comment just before it or after it on its line


def cmake_cache_variables(text):
    """NAME:TYPE=VALUE lines of a CMakeCache.txt, plus what tests/CMakeLists.txt derives from them."""
    variables = {}
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z0-9_]+)(?::[A-Z]+)?=(.*)$", line)
        if m:
            variables[m.group(1)] = m.group(2)
    return with_derived_variables(variables)


def with_derived_variables(variables):
    # The top CMakeLists.txt sets these from the NO_* options; FoundationDB's CI has Python.
    v = dict(variables)
    v.setdefault("WITH_PYTHON", "ON")
    v["MULTIREGION_TEST"] = "FALSE" if cmake_true(v.get("NO_MULTIREGION_TEST", "OFF")) else "TRUE"
    v["RESTART_TEST"] = "FALSE" if cmake_true(v.get("NO_RESTART_TEST", "OFF")) else "TRUE"
    return v


def cmake_true(value):
    value = (value or "").strip()
    if value.upper() in ("", "0", "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND") or value.upper().endswith("-NOTFOUND"):
        return False
    return True


def evaluate_condition(expression, variables):
    """if() conditions of CMake: constants, variables, NOT, AND, OR, parentheses."""
    tokens = re.findall(r'\(|\)|"[^"]*"|[^\s()]+', expression)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def parse_or():
        value = parse_and()
        while peek() == "OR":
            take()
            right = parse_and()
            value = value or right
        return value

    def parse_and():
        value = parse_not()
        while peek() == "AND":
            take()
            right = parse_not()
            value = value and right
        return value

    def parse_not():
        if peek() == "NOT":
            take()
            return not parse_not()
        if peek() == "(":
            take()
            value = parse_or()
            if peek() == ")":
                take()
            return value
        token = take() if peek() is not None else ""
        if token.upper() in ("ON", "YES", "TRUE", "Y") or re.fullmatch(r"[1-9][0-9]*", token):
            return True
        if not cmake_true(token):
            return False
        return cmake_true(variables.get(token.strip('"'), ""))

    return parse_or()


def cmake_commands(text):
    """(name, arguments, comment) of each command: the comment is the one on the lines just before it, or
    after it on its own last line."""
    commands = []
    pending = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            # A blank line ends a comment block that belongs to no command.
            j = i + 1
            while j < n and text[j] in " \t\r":
                j += 1
            if j < n and text[j] == "\n":
                pending = []
            i += 1
        elif c in " \t\r":
            i += 1
        elif c == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            pending.append(text[i + 1:end].strip())
            i = end
        else:
            m = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(").match(text, i)
            if not m:
                end = text.find("\n", i)
                i = n if end < 0 else end
                pending = []
                continue
            j, depth, quoted = m.end(), 1, False
            while j < n and depth > 0:
                ch = text[j]
                if quoted:
                    if ch == "\\":
                        j += 1
                    elif ch == '"':
                        quoted = False
                elif ch == '"':
                    quoted = True
                elif ch == "#":
                    end = text.find("\n", j)
                    j = (n if end < 0 else end) - 1
                elif ch == "(":
                    depth += 1
                elif ch == ")":
                    depth -= 1
                j += 1
            arguments = text[m.end():j - 1]
            end = text.find("\n", j)
            end = n if end < 0 else end
            rest = text[j:end].strip()
            comment = " ".join(pending)
            if rest.startswith("#"):
                comment = (comment + " " + rest[1:].strip()).strip()
            commands.append((m.group(1).lower(), arguments, comment))
            pending = []
            i = end
    return commands


def parse_test_list(text, variables):
    """tests/CMakeLists.txt -> {path under tests/: [ListedTest, ...]}, every add_fdb_test of each file."""
    listed = {}
    stack = []  # [condition text, this branch taken, some branch taken]
    for name, arguments, comment in cmake_commands(text):
        if name == "if":
            value = evaluate_condition(arguments, variables)
            stack.append([arguments.strip(), value, value])
        elif name == "elseif" and stack:
            value = not stack[-1][2] and evaluate_condition(arguments, variables)
            stack[-1] = [arguments.strip(), value, stack[-1][2] or value]
        elif name == "else" and stack:
            stack[-1] = ["NOT (" + stack[-1][0] + ")", not stack[-1][2], True]
        elif name == "endif" and stack:
            stack.pop()
        elif name == "add_fdb_test":
            words = re.findall(r'"[^"]*"|\S+', re.sub(r"#[^\n]*", "", arguments))
            files, flags, key = [], set(), None
            for word in words:
                if word in ("UNIT", "IGNORE", "LONG_RUNNING"):
                    flags.add(word)
                    key = None
                elif word in ("TEST_FILES", "TEST_NAME", "TIMEOUT"):
                    key = word
                elif key == "TEST_FILES":
                    files.append(word.strip('"'))
                elif key in ("TEST_NAME", "TIMEOUT"):
                    key = None
            entry = ListedTest(files=tuple(files), ignore="IGNORE" in flags, unit="UNIT" in flags,
                               long_running="LONG_RUNNING" in flags, active=all(s[1] for s in stack),
                               conditions=tuple(s[0] for s in stack if s[0] != "WITH_PYTHON"), comment=comment)
            for f in files:
                listed.setdefault(f, []).append(entry)
    return listed


def listing_for(listed, path):
    """The add_fdb_test that applies to a file: the one this build's configuration takes, else any."""
    entries = listed.get(path, [])
    for e in entries:
        if e.active:
            return e
    return entries[0] if entries else None


# ---- Which test files can run here ------------------------------------------------------------------------

def test_configuration(path):
    """The [configuration] table of a TOML test file (empty for .txt files and unreadable ones)."""
    if not path.endswith(".toml") or not os.path.isfile(path):
        return {}
    try:
        import tomllib
        with open(path, "rb") as f:
            table = tomllib.load(f).get("configuration", {})
        return {k: (v if isinstance(v, str) else json.dumps(v)) for k, v in table.items()}
    except Exception:
        # No tomllib (Python < 3.11) or a file tomllib refuses: read the simple key = value lines.
        table, inside = {}, False
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line.startswith("["):
                    inside = line == "[configuration]"
                elif inside and "=" in line:
                    k, v = line.split("=", 1)
                    table[k.strip()] = v.strip().strip("'\"")
        return table


def why_not_runnable(path, listed, variables, source, run_ignored=False, build_dir=None):
    """None when the file (under tests/) can run here, else the reason in words. build_dir: where the build's
    share/foundationdb would hold the libraries of External workloads."""
    entry = listing_for(listed, path)
    if entry and len(entry.files) > 1 or re.search(r"-[0-9]+\.(toml|txt)$", path):
        parts = entry.files if entry and len(entry.files) > 1 else ()
        m = re.match(r"restarting/(from|to)_([0-9.]+)(?:_until_([0-9.]+))?/", path)
        part = f"part {parts.index(path) + 1} of {len(parts)}" if path in parts else "one part"
        if m and m.group(1) == "from":
            until = f" and before {m.group(3)}" if m.group(3) else ""
            return (f"{part} of a restart test: its first part wants an fdbserver {m.group(2)} or newer{until} "
                    "(an older binary than this build), the next part runs on the saved data with -R")
        if m:
            return (f"{part} of a downgrade test: its last part wants fdbserver {m.group(2)} "
                    "(an older binary than this build)")
        return f"{part} of a multi-part test (each part runs on the data the one before saved, with -R)"
    if entry and entry.unit:
        return "a unit test (fdbserver -r test against a real cluster), not a simulation"
    full = os.path.join(source, "tests", path)
    text = ""
    if os.path.isfile(full):
        with open(full, encoding="utf-8", errors="replace") as f:
            text = f.read()
        spec = r"^\s*testTitle\s*=" if path.endswith(".txt") else r"^\s*\[\[test\]\]"
        if not re.search(spec, text, re.M):
            return "not a test specification (no " + ("testTitle line" if path.endswith(".txt") else "[[test]] table") + \
                ": FoundationDB keeps other files there, such as a status test's expected output)"
        for library in re.findall(r"^\s*libraryName\s*=\s*['\"]?([A-Za-z0-9_.-]+)", text, re.M):
            where = os.path.join(build_dir or "", "share", "foundationdb", f"lib{library}.so")
            if not re.search(r"^\s*libraryPath\s*=", text, re.M) and not os.path.isfile(where):
                return (f"needs the External workload library lib{library}.so (in the build's share/foundationdb), "
                        "which scripts/build-fdb does not build")
    if not cmake_true(variables.get("WITH_ROCKSDB", "OFF")):
        engine = test_configuration(full).get("storageEngineType", "").strip("'\"")
        if engine in ROCKSDB_ENGINES:
            return f"needs RocksDB (storageEngineType = {engine}), which this build leaves out (WITH_ROCKSDB=OFF)"
    if entry is None:
        return None  # not in FoundationDB's list (a file of one's own): run it
    note = f" ({entry.comment})" if entry.comment else ""
    if not entry.active:
        return (f"FoundationDB's tests/CMakeLists.txt lists it only under if({') and if('.join(entry.conditions)}), "
                f"false for this build{note}")
    if entry.ignore and not run_ignored:
        where = f" under if({') and if('.join(entry.conditions)})" if entry.conditions else ""
        return f"marked IGNORE in FoundationDB's tests/CMakeLists.txt{where}{note}"
    if entry.long_running and not run_ignored:
        return f"marked LONG_RUNNING in FoundationDB's tests/CMakeLists.txt: its CI runs it apart, for hours{note}"
    return None


# ---- What --tests names ------------------------------------------------------------------------------------

@dataclasses.dataclass
class Test:
    name: str  # a named test's name, or the file's path under the source (tests/fast/AtomicOps.toml)
    file: str  # path under the source
    configuration: str = ""
    expect: str = "pass"
    named: bool = False
    replace: tuple = ()
    not_runnable: str = None  # the reason, when it cannot run here

    @property
    def slug(self):
        """Its folder under OUT/runs."""
        if self.named:
            return self.name
        return re.sub(r"\.(toml|txt)$", "", self.file[len("tests/"):] if self.file.startswith("tests/") else self.file)


TEST_FILE = re.compile(r"\.(toml|txt)$", re.IGNORECASE)


def is_test_file(path):
    """A .toml or .txt file that is not FoundationDB's build or tool files beside the tests."""
    name = os.path.basename(path)
    return bool(TEST_FILE.search(name)) and name not in ("CMakeLists.txt", "requirements.txt", "pyproject.toml") \
        and "/TestRunner/" not in path and ".egg-info" not in path


def resolve_tests(items, source, listed, variables, run_ignored=False, build_dir=None):
    """--tests items -> [Test]: names, files, globs and folders of the FoundationDB source, in order, once each."""
    tests, seen = [], set()
    tests_dir = os.path.join(source, "tests")

    def add_file(path):
        relative = os.path.relpath(path, source)
        if relative in seen:
            return
        seen.add(relative)
        under_tests = os.path.relpath(path, tests_dir)
        reason = why_not_runnable(under_tests, listed, variables, source, run_ignored, build_dir) \
            if not under_tests.startswith("..") else None
        tests.append(Test(name=relative, file=relative, not_runnable=reason))

    for item in items:
        item = item.strip()
        if not item:
            continue
        if item in NAMED:
            if item not in seen:
                seen.add(item)
                t = NAMED[item]
                tests.append(Test(name=t.name, file=t.file, configuration=t.configuration, expect=t.expect, named=True,
                                  replace=t.replace))
            continue
        if os.path.isabs(item):
            raise UsageError(f"'{item}': name a test file by its path inside FoundationDB's source ({source}), "
                             "e.g. tests/fast/AtomicOps.toml")
        candidates = [item] if item.startswith("tests/") or item == "tests" else [item, "tests/" + item]
        matched = []
        for candidate in candidates:
            full = os.path.normpath(os.path.join(source, candidate))
            if not (full + os.sep).startswith(os.path.normpath(source) + os.sep):
                raise UsageError(f"'{item}' lies outside FoundationDB's source")
            if glob.has_magic(candidate):
                matched = sorted(p for p in glob.glob(full) if os.path.isfile(p) and is_test_file(p))
            elif os.path.isdir(full):
                matched = sorted(p for p in (os.path.join(d, f) for d, _, fs in os.walk(full) for f in fs) if is_test_file(p))
            elif os.path.isfile(full):
                if not TEST_FILE.search(full):
                    raise UsageError(f"'{item}' is not a test file: fdbserver takes .toml and .txt test files")
                matched = [full]
            if matched:
                break
        if not matched:
            names = ", ".join(DEFAULT_TESTS + ["cycle-broken"])
            raise UsageError(f"'{item}' is neither a named test ({names}) nor a test file, glob or folder "
                             f"of FoundationDB's source ({source})")
        for path in matched:
            add_file(path)
    return tests
