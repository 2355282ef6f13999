"""Which public names of MindSpore its tutorials and MindFlow use: a static scan (issue 42).

Reads the code of MindSpore's tutorials (``tutorials/source_en`` of github.com/mindspore-ai/docs:
Markdown code blocks, notebooks, .py) and of MindFlow (``MindFlow/`` of
github.com/mindspore-ai/mindscience: .py, notebooks, Markdown code blocks) straight from git
mirrors, without checking them out and without importing or running any of it: each code block is
parsed with ``ast`` (or matched with a regular expression where it does not parse), imports give
the aliases (``import mindspore as ms``, ``from mindspore import nn``, ``import mindspore.numpy as
mnp``, ``from mindspore.ops import operations as P``), and every ``alias.Name`` or imported name is
mapped onto ``mindspore``, ``mindspore.nn``, ``mindspore.ops`` or ``mindspore.numpy``. A name counts
only where real MindSpore (installed here) has it as a public name of that module. Each name gets
the number of files that use it. Writes ``tests/data/mindspore_api_usage.txt``:

    python bench/mindspore_api_scan.py DOCS_GIT_DIR MINDSCIENCE_GIT_DIR
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import re
import subprocess
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "mindspore_api_usage.txt"
SOURCES = (("docs", "tutorials/source_en/"), ("mindscience", "MindFlow/"))
SUFFIXES = (".py", ".ipynb", ".md")
# module paths (after ``mindspore.``) whose public names count, and the module they count under
MODULES = {
    "": "mindspore",
    "nn": "nn",
    "ops": "ops",
    "ops.operations": "ops",
    "ops.functional": "ops",
    "ops.composite": "ops",
    "ops.function": "ops",
    "numpy": "numpy",
    "dtype": "mindspore",
    "common": "mindspore",
    "common.dtype": "mindspore",
    "common.api": "mindspore",
    "common.tensor": "mindspore",
    "common.parameter": "mindspore",
}
TOP_LEVEL_MODULES = {"context", "dtype"}  # submodules of mindspore used as names (ms.context.set_context)
FENCE = re.compile(r"```(?:python|py|python3)?[^\n]*\n(.*?)```", re.S)
CHAIN = re.compile(r"\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)")
IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+)?import\s+([\w.,\s]+?)(?:#.*)?$", re.M)


def code_blocks(path: str, text: str) -> list[str]:
    """The Python code of a file: the file, a notebook's code cells or a Markdown file's code blocks."""
    if path.endswith(".py"):
        return [text]
    if path.endswith(".ipynb"):
        try:
            cells = json.loads(text).get("cells", [])
        except json.JSONDecodeError:
            return []
        return ["".join(c.get("source", "")) for c in cells if c.get("cell_type") == "code"]
    return FENCE.findall(text)


def clean(block: str) -> str:
    """Drop notebook magics and shell lines, strip doctest prompts."""
    lines = []
    for line in block.splitlines():
        if line.lstrip().startswith(("!", "%")):
            continue
        lines.append(line[4:] if line.startswith((">>> ", "... ")) else line)
    return "\n".join(lines)


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def read_block(block: str, aliases: dict[str, str], chains: set[str]) -> None:
    """Add the block's import aliases (local name -> dotted path) and its dotted names."""
    try:
        tree = ast.parse(block)
    except SyntaxError:
        for module, names in IMPORT.findall(block):
            for item in names.split(","):
                bits = item.split()
                if not bits:
                    continue
                target = f"{module}.{bits[0]}" if module else bits[0]
                local = bits[-1] if len(bits) == 3 and bits[1] == "as" else bits[0].split(".")[0]
                aliases[local] = target if (module or len(bits) == 3) else local
        chains.update(CHAIN.findall(re.sub(r"#.*", "", block)))
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
                chains.add(a.asname or a.name)
        elif isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            if dotted:
                chains.add(dotted)


def resolve(path: str, public: dict[str, set[str]]) -> tuple[str, str] | None:
    """``mindspore.nn.Dense`` -> ("nn", "Dense"); None when it names no counted public name."""
    parts = path.split(".")
    if parts[0] != "mindspore" or len(parts) < 2:
        return None
    for cut in range(len(parts) - 1, 0, -1):  # the longest module prefix first
        module = ".".join(parts[1:cut])
        if module in MODULES:
            target, name = MODULES[module], parts[cut]
            return (target, name) if name in public[target] else None
    return None


def names_of_file(blocks: list[str], public: dict[str, set[str]]) -> set[tuple[str, str]]:
    aliases: dict[str, str] = {}
    chains: set[str] = set()
    for block in blocks:
        read_block(clean(block), aliases, chains)
    found = set()
    for chain in chains:
        head, _, rest = chain.partition(".")
        if head not in aliases:
            continue
        full = aliases[head] + ("." + rest if rest else "")
        # a chain goes as deep as the first name that resolves (ms.nn.Dense.__init__ -> nn.Dense)
        bits = full.split(".")
        for end in range(2, len(bits) + 1):
            hit = resolve(".".join(bits[:end]), public)
            if hit:
                found.add(hit)
                break
    return found


def public_names() -> dict[str, set[str]]:
    import inspect

    import mindspore
    import mindspore.numpy

    mods = {"mindspore": mindspore, "nn": mindspore.nn, "ops": mindspore.ops, "numpy": mindspore.numpy}
    out = {}
    for key, mod in mods.items():
        names = {n for n in dir(mod) if not n.startswith("_")}
        out[key] = {
            n
            for n in names
            if not inspect.ismodule(getattr(mod, n)) or (key == "mindspore" and n in TOP_LEVEL_MODULES)
        }
    return out


def git_files(git_dir: str, prefix: str) -> dict[str, str]:
    """Every .py/.ipynb/.md file under ``prefix`` at HEAD of a bare mirror, read with git itself."""
    listing = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "HEAD", "--", prefix],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    wanted = [line.split("\t", 1) for line in listing.splitlines()]
    wanted = [(meta.split()[2], path) for meta, path in wanted if path.endswith(SUFFIXES)]
    batch = subprocess.run(
        ["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
        input="\n".join(sha for sha, _ in wanted).encode() + b"\n", check=True, capture_output=True,
    ).stdout  # fmt: skip
    files, pos = {}, 0
    for _sha, path in wanted:
        header_end = batch.index(b"\n", pos)
        header = batch[pos:header_end].split()
        if header[1] == b"missing":
            pos = header_end + 1
            continue
        size = int(header[2])
        files[path] = batch[header_end + 1 : header_end + 1 + size].decode("utf-8", "replace")
        pos = header_end + 1 + size + 1
    return files


def commit_of(git_dir: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("docs", help="git dir of mindspore-ai/docs")
    parser.add_argument("mindscience", help="git dir of mindspore-ai/mindscience")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    public = public_names()
    counts: collections.Counter = collections.Counter()
    header = []
    for (label, prefix), git_dir in zip(SOURCES, (args.docs, args.mindscience)):
        files = git_files(git_dir, prefix)
        using = 0
        for path, text in files.items():
            found = names_of_file(code_blocks(path, text), public)
            using += bool(found)
            counts.update(found)
        header.append(
            f"# {label} {commit_of(git_dir)} {prefix}: {len(files)} files read, {using} use MindSpore names"
        )
    import mindspore

    lines = [
        "# Public MindSpore names used by its tutorials and MindFlow, with the number of files using each",
        "# (a static scan: bench/mindspore_api_scan.py; names only, no code). Columns: module name files.",
        f"# names checked against mindspore {mindspore.__version__}'s public names",
        *header,
    ]
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    lines += [f"{module} {name} {n}" for (module, name), n in rows]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"{len(rows)} names written to {args.out}")


if __name__ == "__main__":
    main()
