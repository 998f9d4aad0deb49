"""Generate components/model/llamacpp_data.py from llama.cpp's own C++ source, at a pinned commit:
for every architecture, the GGUF name llama.cpp gives it, the RoPE pairing `llama_model_rope_type`
returns, the sliding-window pattern and window its `load_arch_hparams` sets, the layers its graph
builds without RoPE, the RoPE bases of its global and sliding layers, the GGUF keys it reads for
positions (with their fallbacks) and how it computes the YaRN attention factor. Every fact carries
the `file:line` it was read from.

    python -m scripts.llamacpp_tables LLAMA_CPP           # write the module
    python -m scripts.llamacpp_tables LLAMA_CPP --check   # exit 1 when the module is stale

LLAMA_CPP is a llama.cpp git directory (bare, e.g. a mirror's `repo`) or a checkout; the files are
read at its HEAD (or --commit). The regexes follow the layout of llama.cpp with one
`llama_model_<name>` class per architecture (src/models/*.cpp, declared in src/models/models.h):
when a pattern stops matching, the script stops with the file it could not read.
"""

from __future__ import annotations

import argparse
import pprint
import re
import subprocess
import sys
from pathlib import Path

from scripts.generated import write_or_check

OUT = Path(__file__).resolve().parents[1] / "components" / "model" / "llamacpp_data.py"
MIRROR = "unslothai/llama.cpp"

MODEL = "src/llama-model.cpp"
ARCH = "src/llama-arch.cpp"
HPARAMS_H = "src/llama-hparams.h"
HPARAMS_CPP = "src/llama-hparams.cpp"
GRAPH = "src/llama-graph.cpp"
CONTEXT = "src/llama-context.cpp"
MODELS_H = "src/models/models.h"
GGML_CPU_OPS = "ggml/src/ggml-cpu/ops.cpp"

ROPE_TYPES = {
    "LLAMA_ROPE_TYPE_NONE": "none",
    "LLAMA_ROPE_TYPE_NORM": "norm",
    "LLAMA_ROPE_TYPE_NEOX": "neox",
    "LLAMA_ROPE_TYPE_MROPE": "mrope",
    "LLAMA_ROPE_TYPE_IMROPE": "imrope",
    "LLAMA_ROPE_TYPE_VISION": "vision",
}
# The GGUF keys of positions the model reader reads (enum of src/llama-arch.h).
POSITION_KEYS = (
    "LLM_KV_CONTEXT_LENGTH",
    "LLM_KV_ROPE_FREQ_BASE",
    "LLM_KV_ROPE_FREQ_BASE_SWA",
    "LLM_KV_ROPE_DIMENSION_COUNT",
    "LLM_KV_ROPE_DIMENSION_COUNT_SWA",
    "LLM_KV_ROPE_DIMENSION_SECTIONS",
    "LLM_KV_ROPE_SCALING_TYPE",
    "LLM_KV_ROPE_SCALING_FACTOR",
    "LLM_KV_ROPE_SCALE_LINEAR",
    "LLM_KV_ROPE_SCALING_ATTN_FACTOR",
    "LLM_KV_ROPE_SCALING_ALPHA",
    "LLM_KV_ROPE_SCALING_ORIG_CTX_LEN",
    "LLM_KV_ROPE_SCALING_FINETUNED",
    "LLM_KV_ROPE_SCALING_YARN_LOG_MUL",
    "LLM_KV_ROPE_SCALING_YARN_EXT_FACTOR",
    "LLM_KV_ROPE_SCALING_YARN_ATTN_FACTOR",
    "LLM_KV_ROPE_SCALING_YARN_BETA_FAST",
    "LLM_KV_ROPE_SCALING_YARN_BETA_SLOW",
    "LLM_KV_ATTENTION_KEY_LENGTH",
    "LLM_KV_ATTENTION_KEY_LENGTH_SWA",
    "LLM_KV_ATTENTION_KEY_LENGTH_MLA",
    "LLM_KV_ATTENTION_HEAD_COUNT",
    "LLM_KV_ATTENTION_HEAD_COUNT_KV",
    "LLM_KV_ATTENTION_SLIDING_WINDOW",
    "LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN",
    "LLM_KV_ATTENTION_MAX_ALIBI_BIAS",
    "LLM_KV_INTERLEAVE_MOE_LAYER_STEP",
    "LLM_KV_NO_ROPE_LAYER_STEP",
    "LLM_KV_NEXTN_PREDICT_LAYERS",
)
SWA_TYPES = ("NONE", "STANDARD", "CHUNKED", "SYMMETRIC")


class Stop(Exception):
    """A pattern the generator relies on is not in the source any more."""


# --------------------------------------------------------------------------------------------
# Reading the tree


class Tree:
    """The files of one llama.cpp commit, from a git directory or a checkout."""

    def __init__(self, path: str, commit: str | None) -> None:
        p = Path(path)
        if (p / "objects").is_dir() and (p / "HEAD").is_file():
            self.git: list[str] | None = ["git", f"--git-dir={p}"]
        elif (p / ".git").exists():
            self.git = ["git", "-C", str(p)]
        else:
            self.git = None
        self.root = p
        if self.git is not None:
            self.commit = self._run("rev-parse", f"{commit or 'HEAD'}^{{commit}}").strip()
        elif commit:
            self.commit = commit
        else:
            raise SystemExit(f"{path}: not a git directory; pass --commit")
        if not re.fullmatch(r"[0-9a-f]{40}", self.commit):
            raise SystemExit(f"not a commit id: {self.commit}")
        self._cache: dict[str, list[str]] = {}

    def _run(self, *args: str) -> str:
        assert self.git is not None
        done = subprocess.run([*self.git, *args], capture_output=True, text=True, check=True)
        return done.stdout

    def lines(self, rel: str) -> list[str]:
        if rel not in self._cache:
            if self.git is not None:
                text = self._run("show", f"{self.commit}:{rel}")
            else:
                text = (self.root / rel).read_text(encoding="utf-8")
            self._cache[rel] = text.splitlines()
        return self._cache[rel]

    def listdir(self, rel: str) -> list[str]:
        if self.git is not None:
            out = self._run("ls-tree", "--name-only", self.commit, rel + "/")
            names = [Path(n).name for n in out.splitlines()]
        else:
            names = [n.name for n in (self.root / rel).iterdir()]
        return sorted(names)


def loc(rel: str, i: int) -> str:
    return f"{rel}:{i + 1}"


COMMENT = re.compile(r"//.*$")
BLOCK_COMMENT = re.compile(r"/\*.*?\*/")
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def clean(line: str) -> str:
    """A line of code without its comments and string contents."""
    line = STRING.sub('""', line)
    line = BLOCK_COMMENT.sub(" ", line)
    return COMMENT.sub("", line)


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def body(lines: list[str], start: int, rel: str) -> tuple[int, int]:
    """The lines [start, end] of the braced block that opens on or after line `start`."""
    depth = 0
    opened = False
    for i in range(start, len(lines)):
        for ch in clean(lines[i]):
            if ch == "{":
                depth += 1
                opened = True
            elif ch == "}":
                depth -= 1
                if opened and depth == 0:
                    return start, i
    raise Stop(f"{loc(rel, start)}: unbalanced braces")


def find(lines: list[str], pattern: str, rel: str, start: int = 0, end: int | None = None) -> int:
    rx = re.compile(pattern)
    for i in range(start, len(lines) if end is None else end + 1):
        if rx.search(lines[i]):
            return i
    raise Stop(f"{rel}: no line matches {pattern!r}")


class Stmt:
    """One statement (or block header) of a function, with the conditions around it."""

    def __init__(
        self,
        line: int,
        text: str,
        stack: list[tuple[str | None, int]],
        header: bool,
        func: str = "",
    ) -> None:
        self.line = line
        self.text = squash(text)
        self.conds = tuple(c for c, _ in stack if c)
        self.cond_lines = tuple(i for c, i in stack if c)
        self.header = header
        self.func = func

    @property
    def when(self) -> str | None:
        return " && ".join(f"({c})" if len(self.conds) > 1 else c for c in self.conds) or None


IF = re.compile(r"^(?:else\s+)?if\s*(?:constexpr\s*)?\((.*)\)$")


def statements(lines: list[str], start: int, end: int) -> list[Stmt]:
    """The statements of lines [start, end], each with the `if` conditions it is under."""
    out: list[Stmt] = []
    stack: list[tuple[str | None, int]] = []  # each open block's condition (None: not if/else)
    last_if: str | None = None
    func = ""
    buf = ""
    buf_line = start
    paren = 0
    for i in range(start, end + 1):
        for ch in clean(lines[i]) + " ":
            if not buf.strip():
                buf_line = i
            if ch == "(":
                paren += 1
            elif ch == ")":
                paren -= 1
            if ch == ";" and paren == 0:
                out.append(Stmt(buf_line, buf, stack, False, func))
                buf = ""
            elif ch == "{" and paren == 0:
                head = squash(buf)
                cond: str | None = None
                m = IF.match(head)
                if m:
                    cond = squash(m.group(1))
                    if head.startswith("else") and last_if:
                        cond = f"!({last_if}) && ({cond})"
                    last_if = cond
                elif head == "else" and last_if:
                    cond = f"!({last_if})"
                if not stack:
                    func = head
                out.append(Stmt(buf_line, head, stack, True, func))
                stack.append((cond, buf_line))
                buf = ""
            elif ch == "}" and paren == 0:
                if buf.strip():
                    out.append(Stmt(buf_line, buf, stack, False, func))
                if stack:
                    popped = stack.pop()[0]
                    if popped and not popped.startswith("!("):
                        last_if = popped
                buf = ""
            else:
                buf += ch
    return out


def plain(expr: str) -> str:
    """A C++ condition as a Python expression over il, n_layer and the hparams fields."""
    e = squash(expr)
    e = e.replace("hparams.", "").replace("static_cast<uint32_t>(il)", "il")
    e = re.sub(r"\b(\d+(?:\.\d+)?)f\b", r"\1", e)
    e = re.sub(r"LLAMA_SWA_TYPE_(\w+)", lambda m: repr(m.group(1).lower()), e)
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e)
    return squash(e).replace("( ", "(").replace(" )", ")")


def number(text: str) -> int | float | str:
    t = text.strip()
    if re.fullmatch(r"-?\d+", t):
        return int(t)
    if re.fullmatch(r"-?\d+\.\d*f?|-?\d*\.\d+f?", t):
        return float(t.rstrip("f"))
    return squash(t.replace("hparams.", ""))


# --------------------------------------------------------------------------------------------
# The architectures and the classes that load them


class Source:
    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.model_files = [
            f"src/models/{n}" for n in tree.listdir("src/models") if n.endswith(".cpp")
        ]
        self.arch_names = self._arch_names()
        self.classes = self._mapping()
        self.parents, self.graph_alias = self._models_h()
        self.hparams_defs, self.graph_defs = self._defs()

    def _arch_names(self) -> dict[str, tuple[str, str]]:
        lines = self.tree.lines(ARCH)
        s = find(lines, r"LLM_ARCH_NAMES\s*=\s*\{", ARCH)
        _, e = body(lines, s, ARCH)
        out = {}
        for i in range(s, e + 1):
            m = re.search(r'\{\s*(LLM_ARCH_\w+)\s*,\s*"([^"]+)"\s*\}', lines[i])
            if m:
                out[m.group(1)] = (m.group(2), loc(ARCH, i))
        if not out:
            raise Stop(f"{ARCH}: empty LLM_ARCH_NAMES")
        return out

    def _mapping(self) -> dict[str, tuple[str, str]]:
        """LLM_ARCH_* -> (llama_model_* class, file:line of its case in llama_model_mapping)."""
        lines = self.tree.lines(MODEL)
        s = find(lines, r"llama_model\s*\*\s*llama_model_mapping\(", MODEL)
        _, e = body(lines, s, MODEL)
        out: dict[str, tuple[str, str]] = {}
        pending: list[tuple[str, int]] = []
        for i in range(s, e + 1):
            m = re.search(r"case (LLM_ARCH_\w+):", lines[i])
            if m:
                pending.append((m.group(1), i))
            m = re.search(r"return new llama_model_(\w+)\(", lines[i])
            if m:
                for arch, j in pending:
                    out[arch] = (m.group(1), loc(MODEL, j))
                pending = []
        return out

    def _models_h(self) -> tuple[dict[str, str], dict[str, str]]:
        parents: dict[str, str] = {}
        alias: dict[str, str] = {}
        current = None
        for line in self.tree.lines(MODELS_H):
            m = re.match(r"struct llama_model_(\w+)\s*:\s*public llama_model_(\w+)", line)
            if m:
                current = m.group(1)
                parents[current] = m.group(2)
            m = re.search(r"using graph = llama_model_(\w+)::graph", line)
            if m and current:
                alias[current] = m.group(1)
        return parents, alias

    def _defs(self) -> tuple[dict[str, tuple[str, int]], dict[str, str]]:
        hp: dict[str, tuple[str, int]] = {}
        graph: dict[str, str] = {}
        for rel in self.model_files:
            for i, line in enumerate(self.tree.lines(rel)):
                m = re.match(r"void llama_model_(\w+)::load_arch_hparams\(", line)
                if m:
                    hp[m.group(1)] = (rel, i)
                m = re.match(r"llama_model_(\w+)::graph(?:<[^>]*>)?::graph\(", line)
                if m:
                    graph.setdefault(m.group(1), rel)
        return hp, graph

    def kv_name(self, kv: str) -> str:
        """A GGUF key's name after "{arch}." (LLM_KV_NAMES)."""
        for line in self.tree.lines(ARCH):
            m = re.search(rf'\{{\s*{kv}\s*,\s*"%s\.([^"]+)"\s*\}}', line)
            if m:
                return m.group(1)
        raise Stop(f"{ARCH}: {kv} has no name in LLM_KV_NAMES")

    def name(self, arch: str) -> str:
        if arch not in self.arch_names:
            raise Stop(f"{ARCH}: {arch} has no name in LLM_ARCH_NAMES")
        return self.arch_names[arch][0]

    def hparams_class(self, cls: str) -> str | None:
        while cls not in self.hparams_defs:
            if cls not in self.parents or self.parents[cls] == "base":
                return None
            cls = self.parents[cls]
        return cls

    def graph_file(self, cls: str) -> str | None:
        seen = set()
        while cls not in self.graph_defs and cls not in seen:
            seen.add(cls)
            if cls in self.graph_alias:
                cls = self.graph_alias[cls]
            elif cls in self.parents and self.parents[cls] != "base":
                cls = self.parents[cls]
            else:
                return None
        return self.graph_defs.get(cls)

    def hparams_stmts(self, cls: str) -> tuple[str, int, list[Stmt]]:
        rel, s = self.hparams_defs[cls]
        lines = self.tree.lines(rel)
        _, e = body(lines, s, rel)
        return rel, s, statements(lines, s + 1, e - 1)

    def archs_of(self, hp_cls: str) -> tuple[str, ...]:
        """The GGUF names of the architectures whose hparams are loaded by class hp_cls."""
        return tuple(
            sorted(
                self.name(a)
                for a, (c, _) in self.classes.items()
                if self.hparams_class(c) == hp_cls
            )
        )


# --------------------------------------------------------------------------------------------
# Tables


def arch_names(src: Source) -> dict:
    return {a: {"name": n, "source": where} for a, (n, where) in src.arch_names.items()}


def rope_types(src: Source) -> dict:
    lines = src.tree.lines(MODEL)
    s = find(lines, r"^llama_rope_type llama_model_rope_type\(", MODEL)
    _, e = body(lines, s, MODEL)
    out: dict[str, dict] = {}
    pending: list[tuple[str, int]] = []
    kinds = "|".join(ROPE_TYPES)
    for i in range(s, e + 1):
        code = clean(lines[i])
        m = re.search(r"case (LLM_ARCH_\w+):", code)
        if m:
            pending.append((m.group(1), i))
            continue
        m = re.search(rf"return\s+(.+?)\s*\?\s*({kinds})\s*:\s*({kinds})\s*;", code)
        if m:
            cond = squash(m.group(1).replace("model->hparams.", "hparams."))
            row = {
                "rope": ROPE_TYPES[m.group(3)],
                "conditional": {
                    "when": plain(cond),
                    "then": ROPE_TYPES[m.group(2)],
                    "else": ROPE_TYPES[m.group(3)],
                    "source": loc(MODEL, i),
                },
            }
        else:
            m = re.search(rf"return\s+({kinds})\s*;", code)
            if not m:
                if re.search(r"\breturn\b|GGML_ABORT", code):
                    pending = []
                continue
            row = {"rope": ROPE_TYPES[m.group(1)]}
        for arch, j in pending:
            if arch == "LLM_ARCH_UNKNOWN":
                continue
            out[src.name(arch)] = {
                "enum": arch,
                **row,
                "source": loc(MODEL, j),
                "returns": loc(MODEL, i),
            }
        pending = []
    if not out:
        raise Stop(f"{MODEL}: no case in llama_model_rope_type")
    return out


def use_mrope(src: Source) -> dict:
    lines = src.tree.lines(HPARAMS_CPP)
    s = find(lines, r"bool llama_hparams::use_mrope\(", HPARAMS_CPP)
    i = find(lines, r"return ", HPARAMS_CPP, s)
    expr = re.search(r"return (.*);", lines[i]).group(1)
    return {"when": plain(expr), "source": loc(HPARAMS_CPP, i)}


def swa_semantics(src: Source) -> dict:
    """What set_swa_pattern and each swa_type mean (llama-hparams.h/.cpp)."""
    h = src.tree.lines(HPARAMS_H)
    c = src.tree.lines(HPARAMS_CPP)
    out: dict[str, dict] = {}
    for t in SWA_TYPES:
        i = find(h, rf"^\s*LLAMA_SWA_TYPE_{t}\s*=", HPARAMS_H)
        out[t.lower()] = {"enum": f"LLAMA_SWA_TYPE_{t}", "source": loc(HPARAMS_H, i)}
    s = find(h, r"static bool is_masked_swa\(", HPARAMS_H)
    _, e = body(h, s, HPARAMS_H)
    current = None
    for i in range(s, e + 1):
        m = re.search(r"case LLAMA_SWA_TYPE_(\w+):", h[i])
        if m:
            current = m.group(1).lower()
            continue
        m = re.search(r"if \((.*)\) \{", h[i])
        if m and current:
            out[current]["masked_if"] = plain(m.group(1))
            out[current]["masked_if_source"] = loc(HPARAMS_H, i)
            current = None
    for t in ("standard", "chunked", "symmetric"):
        if "masked_if" not in out[t]:
            raise Stop(f"{HPARAMS_H}: no mask condition for {t}")
    out["none"]["masked_if"] = "False"
    s = find(c, r"void llama_hparams::set_swa_pattern\(", HPARAMS_CPP)
    first = find(c, r"is_swa_impl\[il\] = ", HPARAMS_CPP, s)
    second = find(c, r"is_swa_impl\[il\] = ", HPARAMS_CPP, first + 1)
    d = find(h, r"uint32_t n_swa = ", HPARAMS_H)
    t = find(h, r"llama_swa_type swa_type = ", HPARAMS_H)
    expr = re.compile(r"is_swa_impl\[il\] = (.*);")
    return {
        "types": out,
        "default_swa_type": {
            "value": re.search(r"LLAMA_SWA_TYPE_(\w+)", h[t]).group(1).lower(),
            "source": loc(HPARAMS_H, t),
        },
        "default_window": {
            "value": number(h[d].split("=")[1].rstrip("; ")),
            "source": loc(HPARAMS_H, d),
        },
        "set_swa_pattern": {
            "dense_first": plain(expr.search(c[first]).group(1)),
            "dense_first_source": loc(HPARAMS_CPP, first),
            "dense_last": plain(expr.search(c[second]).group(1)),
            "dense_last_source": loc(HPARAMS_CPP, second),
            "meaning": "is_swa(il) for il < n_layer; n_pattern 0: all SWA, 1: all dense; "
            "default (dense_first false): every n_pattern-th layer (il % n_pattern == "
            "n_pattern - 1) is dense/global; dense_first: layers il % n_pattern == 0 are dense",
        },
    }


PATTERN_ARG = re.compile(r"set_swa_pattern\(\s*([^,)]+?)\s*(?:,\s*(true|false)\s*)?\)")


def read_args(text: str) -> list[str]:
    """The arguments of the first call in text (up to its balancing parenthesis)."""
    start = text.find("(")
    if start < 0:
        return []
    args, depth, cur = [], 0, ""
    for ch in text[start + 1 :]:
        if ch == ")" and depth == 0:
            break
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        depth += ch in "([{"
        depth -= ch in ")]}"
        cur += ch
    args.append(cur.strip())
    return args


def swa(src: Source) -> dict:
    out: dict[str, dict] = {}
    for hp_cls in sorted(src.hparams_defs):
        rel, s, stmts = src.hparams_stmts(hp_cls)
        row: dict = {}
        swa_types = []
        for st in stmts:
            t = st.text
            where = loc(rel, st.line)
            m = re.search(r"hparams\.swa_type\s*=\s*LLAMA_SWA_TYPE_(\w+)", t)
            if m:
                swa_types.append(
                    {"value": m.group(1).lower(), "when": plain_or_none(st), "source": where}
                )
            m = re.search(r"hparams\.n_swa\s*=\s*(\d+)$", t)
            if m:
                row.setdefault("window_default", []).append(
                    {"value": int(m.group(1)), "when": plain_or_none(st), "source": where}
                )
            m = re.search(r"get_key\(LLM_KV_ATTENTION_SLIDING_WINDOW\s*,", t)
            if m:
                row.setdefault("window_key", []).append(
                    {
                        "required": not optional(t[m.start() :]),
                        "when": plain_or_none(st),
                        "source": where,
                    }
                )
            m = re.search(r"uint32_t swa_period\s*=\s*(\d+)", t)
            if m:
                row["n_pattern_default"] = int(m.group(1))
                row["n_pattern_default_source"] = where
            if re.search(r"LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN\s*,\s*swa_period", t):
                row["n_pattern_key_source"] = where
            if re.search(r"LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN\s*,\s*hparams\.is_swa_impl", t):
                row.setdefault("layers", []).append(
                    {"rule": "per_layer_array", "when": plain_or_none(st), "source": where}
                )
            m = PATTERN_ARG.search(t)
            if m:
                arg, dense_first = m.group(1), m.group(2) == "true"
                if arg == "0":
                    rule = "all_swa"
                elif arg == "1":
                    rule = "all_dense"
                else:
                    rule = "dense_first_of_period" if dense_first else "dense_last_of_period"
                row.setdefault("layers", []).append(
                    {
                        "rule": rule,
                        "n_pattern": number(arg) if arg in ("0", "1") else "n_pattern",
                        "dense_first": dense_first,
                        "when": plain_or_none(st),
                        "source": where,
                    }
                )
            m = re.search(r"hparams\.is_swa_impl\[(\w+)\]\s*=\s*(.+)$", t)
            if m and "is_swa_impl[i]" not in m.group(2):
                row.setdefault("layers", []).append(
                    {
                        "rule": "custom",
                        "swa_if": plain(m.group(2)).replace("is_recr_impl[il]", "is_recr(il)"),
                        "index": m.group(1),
                        "when": plain_or_none(st),
                        "source": where,
                    }
                )
        if not swa_types and "layers" not in row:
            continue
        mark_forced(row)
        row["swa_types"] = tuple(swa_types)
        on = [x for x in swa_types if x["value"] != "none"]
        row["swa_type"] = on[0]["value"] if on else "none"
        layers = row.get("layers", [])
        if any(x["rule"] == "all_dense" for x in layers) and not on:
            off = next(x for x in layers if x["rule"] == "all_dense")
            row["disabled"] = {
                "when": off["when"],
                "source": off["source"],
                "meaning": "the GGUF's window is read, then SWA is turned off (all layers dense)",
            }
        row["layers"] = tuple(layers)
        for field in ("window_default", "window_key"):
            if field in row:
                row[field] = tuple(row[field])
        row["function"] = loc(rel, s)
        row["class"] = f"llama_model_{hp_cls}"
        for name in src.archs_of(hp_cls):
            out[name] = row
    return out


def mark_forced(row: dict) -> None:
    """A window set after attention.sliding_window was read replaces the file's (smallthinker.cpp:
    4096 whatever the GGUF says): `forced`; one set before is the default when the key is
    missing."""
    reads = [int(r["source"].rsplit(":", 1)[1]) for r in row.get("window_key", ())]
    for rule in row.get("window_default", ()):
        line = int(rule["source"].rsplit(":", 1)[1])
        rule["forced"] = bool(reads) and min(reads) < line


def plain_or_none(st: Stmt) -> str | None:
    return plain(st.when) if st.when else None


def optional(call: str) -> bool:
    args = read_args(call)
    return bool(args) and args[-1] in ("false", "0", "0.0f", "0.0")


def theta(src: Source) -> dict:
    lines = src.tree.lines(MODEL)
    s = find(lines, r"^void llama_model_base::load_hparams\(", MODEL)
    base = find(lines, r"hparams\.rope_freq_base_train = ", MODEL, s)
    base_key = find(lines, r"get_key\(LLM_KV_ROPE_FREQ_BASE,", MODEL, s)
    scale = find(lines, r"hparams\.rope_freq_scale_train = ", MODEL, s)
    h = src.tree.lines(HPARAMS_H)
    swa_base = find(h, r"float\s+rope_freq_base_train_swa\s*=", HPARAMS_H)
    swa_scale = find(h, r"float\s+rope_freq_scale_train_swa\s*=", HPARAMS_H)
    per_base = find(
        lines, r"return hparams\.is_swa\(il\) \? hparams\.rope_freq_base_train_swa", MODEL
    )
    per_scale = find(
        lines, r"return hparams\.is_swa\(il\) \? hparams\.rope_freq_scale_train_swa", MODEL
    )
    ctx = src.tree.lines(CONTEXT)
    cbase = find(ctx, r"cparams\.rope_freq_base\s*=", CONTEXT)
    cnone = find(ctx, r"cparams\.rope_freq_scale = 1\.0f;", CONTEXT)
    g = src.tree.lines(GRAPH)
    gbase = find(g, r"freq_base\s*\(cparams\.rope_freq_base\)", GRAPH)
    value = re.compile(r"=\s*([^;]+);")
    defaults = {
        "freq_base": {
            "value": number(value.search(lines[base]).group(1)),
            "source": loc(MODEL, base),
            "key_source": loc(MODEL, base_key),
        },
        "freq_scale": {
            "value": squash(value.search(lines[scale]).group(1)).replace("hparams.", ""),
            "meaning": "1/rope.scaling.factor (rope.scale_linear when the factor is missing); "
            "1.0 when neither is set",
            "source": loc(MODEL, scale),
        },
        "freq_base_swa": {
            "value": number(value.search(h[swa_base]).group(1)),
            "meaning": "kept unless the architecture sets or reads it (see THETA)",
            "source": loc(HPARAMS_H, swa_base),
        },
        "freq_scale_swa": {
            "value": number(value.search(h[swa_scale]).group(1)),
            "meaning": "SWA layers are not scaled unless the architecture copies the scale",
            "source": loc(HPARAMS_H, swa_scale),
        },
        "per_layer_base": {
            "code": squash(lines[per_base]),
            "source": loc(MODEL, per_base),
            "meaning": "only where the graph calls model.get_rope_freq_base(cparams, il)",
        },
        "per_layer_scale": {"code": squash(lines[per_scale]), "source": loc(MODEL, per_scale)},
        "context_base": {"code": squash(ctx[cbase]), "source": loc(CONTEXT, cbase)},
        "scaling_none": {
            "code": squash(ctx[cnone]),
            "meaning": "rope.scaling.type none: freq_scale 1 whatever the factor",
            "source": loc(CONTEXT, cnone),
        },
        "graph_base": {
            "code": squash(g[gbase]),
            "meaning": "the graph's freq_base/freq_scale: the same for every layer",
            "source": loc(GRAPH, gbase),
        },
    }
    per_arch: dict[str, dict] = {}
    for hp_cls in sorted(src.hparams_defs):
        rel, s, stmts = src.hparams_stmts(hp_cls)
        row: dict = {}
        for st in stmts:
            t = st.text
            where = loc(rel, st.line)
            when = plain_or_none(st)
            m = re.search(r"hparams\.rope_freq_base_train_swa\s*=\s*(.+)$", t)
            if m:
                row["swa_base_fallback"] = key_of(m.group(1))
                row["swa_base_fallback_source"] = where
            m = re.search(r"hparams\.rope_freq_scale_train_swa\s*=\s*(.+)$", t)
            if m:
                row["swa_scale"] = key_of(m.group(1))
                row["swa_scale_source"] = where
            if re.search(r"LLM_KV_ROPE_FREQ_BASE_SWA\s*,", t):
                row["swa_base_key_source"] = where
                if when:
                    row["swa_base_key_when"] = when
            m = re.search(r"hparams\.rope_freq_base_train\s*=\s*(.+)$", t)
            if m:
                code, defined = with_locals(m.group(1), stmts, st, rel)
                row["base_override"] = {"code": code, "when": when, "source": where}
                if defined:
                    row["base_override"]["defined"] = defined
            m = re.search(r"hparams\.(n_rot_full|n_rot_swa)\s*=\s*(.+)$", t)
            if m:
                row[m.group(1)] = {"code": plain(m.group(2)), "when": when, "source": where}
            if re.search(r"LLM_KV_ROPE_DIMENSION_COUNT_SWA\s*,", t):
                row["n_rot_swa_key_source"] = where
        if not row:
            continue
        if "swa_base_key_source" in row and "swa_base_fallback" not in row:
            row["swa_base_fallback"] = defaults["freq_base_swa"]["value"]
            row["swa_base_fallback_source"] = defaults["freq_base_swa"]["source"]
        if "swa_base_fallback" in row and "swa_scale" not in row:
            row["swa_scale"] = defaults["freq_scale_swa"]["value"]
            row["swa_scale_source"] = defaults["freq_scale_swa"]["source"]
        for name in src.archs_of(hp_cls):
            r = dict(row)
            cls = src.classes[enum_of(src, name)][0]
            gfile = src.graph_file(cls)
            if gfile and "swa_base_fallback" in row:
                r.update(graph_base_use(src, gfile))
            per_arch[name] = r
    return {"defaults": defaults, "arch": per_arch}


LOCAL = re.compile(r"^(?:const\s+)?(?:int|float|double|uint32_t|int64_t|auto)\s+(\w+)\s*=\s*(.+)$")
CAST = re.compile(r"\((?:float|double|int|uint32_t|int64_t)\)\s*")


def with_locals(expr: str, stmts: list[Stmt], at: Stmt, rel: str) -> tuple[str, tuple[str, ...]]:
    """An expression as Python over hparams fields: the locals of its function defined before it
    put in its place (hunyuan-vl.cpp's `dim`), C casts dropped."""
    defined = []
    for st in reversed(stmts[: stmts.index(at)]):
        m = LOCAL.match(st.text)
        if m and re.search(rf"(?<![\w.]){m.group(1)}\b", expr):
            expr = re.sub(rf"(?<![\w.]){m.group(1)}\b", f"({m.group(2)})", expr)
            defined.append(loc(rel, st.line))
    return plain(CAST.sub("", expr)), tuple(defined)


def key_of(expr: str) -> int | float | str:
    e = squash(expr)
    if e == "hparams.rope_freq_base_train":
        return "rope.freq_base"
    if e == "hparams.rope_freq_scale_train":
        return "rope_freq_scale_train (1/rope.scaling.factor)"
    return number(e)


def enum_of(src: Source, name: str) -> str:
    for a, (n, _) in src.arch_names.items():
        if n == name:
            return a
    raise Stop(f"no enum for {name}")


LOADER = re.compile(r"^void llama_model_\w+::load_arch_\w+\(")


def graph_base_use(src: Source, rel: str) -> dict:
    """Whether the graph of rel takes each layer's base from get_rope_freq_base (or the SWA base
    itself); the loader's own lines (load_arch_hparams sets the SWA base) are not the graph."""
    lines = src.tree.lines(rel)
    loaders = [body(lines, i, rel) for i, line in enumerate(lines) if LOADER.match(line)]
    for i, line in enumerate(lines):
        if any(s <= i <= e for s, e in loaders):
            continue
        if re.search(r"get_rope_freq_base\s*\(|hparams\.rope_freq_base_train_swa", clean(line)):
            return {"graph_per_layer_base": True, "graph_source": loc(rel, i)}
    calls = [i for i, line in enumerate(lines) if ROPE_CALL.search(clean(line))]
    return {
        "graph_per_layer_base": False,
        "graph_source": loc(rel, calls[0]) if calls else rel,
        "graph_note": "the graph never reads the SWA base (no live get_rope_freq_base or "
        "rope_freq_base_train_swa): every layer rotates with the global freq_base",
    }


def no_rope(src: Source) -> dict:
    """Layers whose graph skips RoPE: `if (cond) { …ggml_rope… }` without an else."""
    h = src.tree.lines(HPARAMS_H)
    step = find(h, r"uint32_t\s+n_no_rope_layer_step\s*=", HPARAMS_H)
    lines = src.tree.lines(MODEL)
    b = find(lines, r"^void llama_model_base::load_hparams\(", MODEL)
    fin = find(lines, r"bool rope_finetuned = ", MODEL, b)
    field_defaults = {
        "n_no_rope_layer_step": {
            "value": number(re.search(r"=\s*([^;]+);", h[step]).group(1)),
            "source": loc(HPARAMS_H, step),
        },
        "rope_finetuned": {
            "value": re.search(r"=\s*(\w+);", lines[fin]).group(1) == "true",
            "meaning": "rope.scaling.finetuned, false when missing",
            "source": loc(MODEL, fin),
        },
    }
    out: dict[str, dict] = {}
    for arch, (cls, _) in sorted(src.classes.items()):
        gfile = src.graph_file(cls)
        if gfile is None:
            continue
        rules = graph_rope_rules(src, gfile)
        hp_cls = src.hparams_class(cls)
        settings = []
        recurrent = []
        if hp_cls:
            rel, _, stmts = src.hparams_stmts(hp_cls)
            for st in stmts:
                where = loc(rel, st.line)
                m = re.search(
                    rf"(?:hparams\.|bool )({'|'.join(field_defaults)})\s*=\s*(.+)$", st.text
                )
                if m:
                    settings.append(
                        {
                            "field": m.group(1),
                            "value": number(plain(m.group(2))),
                            "when": plain_or_none(st),
                            "source": where,
                        }
                    )
                m = re.search(r"hparams\.is_recr_impl\[(\w+)\]\s*=\s*(.+)$", st.text)
                if m and "is_recr_impl[i]" not in m.group(2):
                    rule = {
                        "is_recr": plain(m.group(2))
                        .replace("(i)", "(il)")
                        .replace("i <", "il <")
                        .replace("(i +", "(il +"),
                        "when": plain_or_none(st),
                        "source": where,
                    }
                    rule.update(recurrent_inputs(src, rel, stmts, st, rule["is_recr"]))
                    recurrent.append(rule)
                if re.search(r"std::fill\(hparams\.is_recr_impl", st.text):
                    recurrent.append(
                        {"is_recr": plain(read_args(st.text)[-1]), "when": None, "source": where}
                    )
                if re.search(
                    r"LLM_KV_ATTENTION_RECURRENT_LAYERS\s*,\s*hparams\.is_recr_impl", st.text
                ):
                    recurrent.append({"is_recr": "per_layer_array", "when": None, "source": where})
        recr_use = None
        for i, line in enumerate(src.tree.lines(gfile)):
            if re.search(r"if \(\s*!?hparams\.is_recr\(il\)", line) or re.search(
                r"=\s*hparams\.is_recr\(il\)", line
            ):
                recr_use = loc(gfile, i)
                break
        if not rules and not (recr_use and recurrent):
            continue
        row: dict = {"enum": arch, "class": f"llama_model_{cls}", "graph": gfile}
        if rules:
            row["rope_if"] = tuple(rules)
        for f, default in field_defaults.items():
            if any(re.search(rf"\b{f}\b", r["rope_if"]) for r in rules):
                row[f] = {"default": default, "set": tuple(x for x in settings if x["field"] == f)}
        if recr_use and recurrent:
            row["recurrent_layers"] = {
                "rule": "recurrent (SSM/linear-attention) layers have no attention and no RoPE",
                "is_recr": tuple(recurrent),
                "graph_source": recr_use,
            }
        out[src.name(arch)] = row
    return out


def recurrent_inputs(src: Source, rel: str, stmts: list[Stmt], at: Stmt, expr: str) -> dict:
    """What a computed is_recr rule reads (qwen3next.cpp): the locals it names, each with its
    default and the GGUF key that replaces it, and the per-layer key whose presence skips it."""
    found: dict = {}
    for name in sorted(set(re.findall(r"\b([a-z_]\w*)\b", expr))):
        default = next(
            (x for x in stmts[: stmts.index(at)]
             if re.fullmatch(rf"(?:const\s+)?uint32_t {name}\s*=\s*\d+", x.text)),
            None,
        )  # fmt: skip
        if default is None:
            continue
        entry = {"default": int(default.text.split("=")[1]), "source": loc(rel, default.line)}
        for x in stmts[stmts.index(default) : stmts.index(at)]:
            m = re.search(rf"get_key\((LLM_KV_\w+)\s*,\s*{name}\s*,", x.text)
            if m:
                entry.update(key=src.kv_name(m.group(1)), key_source=loc(rel, x.line))
        found.setdefault("locals", {})[name] = entry
    m = re.search(r"get_key_or_arr\((LLM_KV_\w+)\s*,\s*hparams\.is_recr_impl", at.when or "")
    if m:
        found["unless_key"] = src.kv_name(m.group(1))
    return found


# Multi-token-prediction heads rotate their one extra layer whatever the main stack does.
MTP = re.compile(r"mtp|nextn", re.I)
ROPE_CALL = re.compile(r"\bggml_rope(?:_ext|_multi)?\s*\(")


def graph_rope_rules(src: Source, rel: str) -> list[dict]:
    """The conditions the RoPE calls of a graph file sit under, with `if (X)`/`else` pairs that
    both rotate merged away; none when some call is unconditional."""
    lines = src.tree.lines(rel)
    stmts = statements(lines, 0, len(lines) - 1)
    flags = bool_flags(stmts)
    found: dict[tuple[str, ...], tuple[int, ...]] = {}
    for st in stmts:
        if not st.header and ROPE_CALL.search(st.text) and not MTP.search(st.func):
            found.setdefault(st.conds, st.cond_lines)
    if not found:
        return []
    merged = True
    while merged:
        merged = False
        for a in sorted(found):
            if not a:
                continue
            neg = a[-1][2:-1] if a[-1].startswith("!(") else f"!({a[-1]})"
            b = (*a[:-1], neg)
            if b in found:
                found[a[:-1]] = found[a][:-1]
                del found[a], found[b]
                merged = True
                break
    if () in found:
        return []
    rules = []
    for conds, where in sorted(found.items()):
        rule, defined = graph_condition(src, rel, conds, flags, where[-1])
        rules.append({"rope_if": rule, "source": loc(rel, where[-1]), "defined": defined})
    return rules


def bool_flags(stmts: list[Stmt]) -> dict[str, list[tuple[int, str]]]:
    """`bool name = expr;` of a graph file: each flag's definitions, by line."""
    flags: dict[str, list[tuple[int, str]]] = {}
    for st in stmts:
        m = re.match(r"(?:const\s+)?bool (\w+)\s*=\s*(.+)$", st.text)
        if m:
            flags.setdefault(m.group(1), []).append((st.line, m.group(2)))
    return flags


def graph_condition(
    src: Source, rel: str, conds: tuple[str, ...], flags: dict, line: int
) -> tuple[str, tuple[str, ...]]:
    """The `if` conditions around line `line` of a graph as one Python expression, with the bool
    flags they are made of substituted (and the lines that define those flags)."""
    cond = " && ".join(f"({c})" if len(conds) > 1 else c for c in conds)
    defined = []
    for _ in range(3):  # substitute the flags the condition is made of
        changed = False
        for name, defs in sorted(flags.items()):
            before = [d for d in defs if d[0] < line]
            if before and re.search(rf"(?<![\w.]){name}\b", cond):
                k, expr = before[-1]
                cond = re.sub(rf"(?<![\w.]){name}\b", f"({expr})", cond)
                defined.append(loc(rel, k))
                changed = True
        if not changed:
            break
    rule = plain(cond).replace("model.arch", "arch")
    rule = re.sub(r"LLM_ARCH_\w+", lambda m: repr(src.name(m.group(0))), rule)
    while rule.startswith("(") and rule.endswith(")") and balanced(rule[1:-1]):
        rule = rule[1:-1]
    return rule, tuple(dict.fromkeys(defined))


# The graph's own names for the rope settings every layer shares (llm_graph_context, set from
# cparams), by their place among ggml_rope_ext's and ggml_rope_multi's arguments (ggml.h).
ROPE_ARGS = ("freq_base", "freq_scale", "ext_factor", "attn_factor", "beta_fast", "beta_slow")
ROPE_ARG_START = {"ggml_rope_ext": 7, "ggml_rope_multi": 8, "ggml_rope_ext_back": 7}
ROPE_CALL_ARGS = re.compile(r"\b(ggml_rope(?:_ext|_multi|_ext_back)?)\s*\(")
GGML = "ggml/src/ggml.c"
# The names the reader (components/model/llamacpp.py, _graph_names) gives a graph's rope
# arguments and conditions: an override over other names is listed in GRAPH_ROPE_SKIPPED.
GRAPH_NAMES = ("il", "arch", "n_layer", "iswa", "is_swa", "found_swa", "n_swa", "n_head_kv",
               "n_no_rope_layer_step", "rope_freq_base", "rope_freq_scale",
               "rope_freq_base_train_swa", "rope_freq_scale_train_swa", *ROPE_ARGS)  # fmt: skip
# C++ spellings of the per-layer getters, as names of GRAPH_NAMES.
GETTERS = (
    (r"model\.get_rope_freq_base\s*\(\s*cparams\s*,\s*il\s*\)", "rope_freq_base(il)"),
    (r"model\.get_rope_freq_scale\s*\(\s*cparams\s*,\s*il\s*\)", "rope_freq_scale(il)"),
)
TERNARY = re.compile(r"^(.+?)\s*\?\s*(.+?)\s*:\s*(.+)$")
GRAPH_LOCAL = re.compile(r"^(?:const\s+)?(?:float|bool|double)\s+(\w+)\s*=\s*(.+)$")


def graph_rope_args(src: Source) -> tuple[dict, tuple]:
    """GGUF architecture -> the RoPE calls of its graph that pass something other than the
    graph's shared settings (olmo2.cpp: the sliding layers' freq_scale 1, ext_factor 0,
    attn_factor 1; gemma3.cpp: each layer's base from get_rope_freq_base), each with the
    condition it is under; and every override the reader cannot follow, with why."""
    per_file: dict[str, tuple[list[dict], list[dict]]] = {}
    out: dict[str, dict] = {}
    skipped: list[dict] = []
    for arch, (cls, _) in sorted(src.classes.items()):
        rel = src.graph_file(cls)
        if rel is None:
            continue
        if rel not in per_file:
            per_file[rel] = rope_arg_calls(src, rel)
            skipped += per_file[rel][1]
        if per_file[rel][0]:
            out[src.name(arch)] = {"graph": rel, "calls": tuple(per_file[rel][0])}
    return out, tuple(skipped)


def ggml_rope_defaults(src: Source) -> dict:
    """The settings ggml_rope (no _ext) passes: ggml.c's constants, which ignore the file."""
    lines = src.tree.lines(GGML)
    s = find(lines, r"^struct ggml_tensor \* ggml_rope\($", GGML)
    i = find(lines, r"ggml_rope_impl\(", GGML, s)
    args = read_args("(" + squash(" ".join(lines[i + 1 : i + 3])))
    if len(args) < 14:
        raise Stop(f"{loc(GGML, i)}: ggml_rope_impl with {len(args)} arguments")
    values = {k: number(v) for k, v in zip(ROPE_ARGS, args[8:14], strict=True)}
    return {"set": values, "source": loc(GGML, i + 1)}


def rope_arg_calls(src: Source, rel: str) -> tuple[list[dict], list[dict]]:
    lines = src.tree.lines(rel)
    stmts = statements(lines, 0, len(lines) - 1)
    flags = bool_flags(stmts)
    calls: list[dict] = []
    skipped: list[dict] = []
    for st in stmts:
        m = ROPE_CALL_ARGS.search(st.text)
        if st.header or not m:
            continue
        row = rope_call(src, rel, stmts, st, m)
        if row is None:
            continue
        rule, defined = graph_condition(src, rel, st.conds, flags, st.line)
        row.update(when=rule or None, source=loc(rel, st.line))
        if defined:
            row["defined"] = defined
        why = not_followed(st, m.group(1), row)
        if why:
            skipped.append({"source": row["source"], "call": m.group(1), "why": why,
                            **{k: row[k] for k in ("set", "expr", "code", "when")}})  # fmt: skip
            if MTP.search(st.func.split("(")[0]) or m.group(1) == "ggml_rope_ext_back":
                continue
        key = (row["set"], row["expr"], row["when"])
        if all((c["set"], c["expr"], c["when"]) != key for c in calls):
            calls.append(row)
    return calls, skipped


def rope_call(src: Source, rel: str, stmts: list[Stmt], st: Stmt, m) -> dict | None:
    """One RoPE call's settings other than the shared ones: literals in `set`, expressions over
    GRAPH_NAMES in `expr` (its locals put in), the C++ of each in `code`; None when it passes
    every shared setting."""
    if m.group(1) == "ggml_rope":
        defaults = ggml_rope_defaults(src)
        return {"set": defaults["set"], "expr": {}, "code": {}, "defaults": defaults["source"]}
    args = read_args(st.text[m.start() :])
    start = ROPE_ARG_START[m.group(1)]
    given = dict(zip(ROPE_ARGS, args[start : start + len(ROPE_ARGS)], strict=False))
    if len(given) != len(ROPE_ARGS):
        raise Stop(f"{loc(rel, st.line)}: {m.group(1)} with {len(args)} arguments")
    changed = {k: v for k, v in given.items() if v != k}
    if not changed:
        return None
    numbers = {k: number(v) for k, v in changed.items()}
    set_to = {k: v for k, v in numbers.items() if isinstance(v, (int, float))}
    expr = {k: graph_expr(v, stmts, st) for k, v in changed.items() if k not in set_to}
    code = {k: squash(v) for k, v in changed.items() if k not in set_to}
    return {"set": set_to, "expr": expr, "code": code}


def graph_expr(text: str, stmts: list[Stmt], at: Stmt) -> str:
    """A graph's C++ expression as Python over GRAPH_NAMES: its float and bool locals defined
    before it put in (laguna.cpp:182's freq_base_l), getters and ternaries rewritten."""
    expr = squash(text)
    before = stmts[: stmts.index(at)]
    for _ in range(3):
        for n, st in reversed(list(enumerate(before))):
            m = GRAPH_LOCAL.match(st.text)
            if m and re.search(rf"(?<![\w.]){m.group(1)}\b", expr):
                value = assigned(m.group(1), before[n + 1 :]) or ternary(m.group(2))
                expr = re.sub(rf"(?<![\w.]){m.group(1)}\b", f"({value})", expr)
    for pattern, name in GETTERS:
        expr = re.sub(pattern, name, expr)
    expr = plain(ternary(expr))
    while expr.startswith("(") and expr.endswith(")") and balanced(expr[1:-1]):
        expr = expr[1:-1]
    return expr


def assigned(name: str, after: list[Stmt]) -> str:
    """A local given its value later by an if/else pair (gemma3.cpp:115-121: `if constexpr
    (iswa)`) as one Python ternary; "" when it is not reassigned; "?" when not so simply."""
    found = [(st, m.group(1)) for st in after
             if (m := re.match(rf"^{name}\s*=\s*(.+)$", st.text))]  # fmt: skip
    if not found:
        return ""
    if len(found) == 2:
        (a, x), (b, y) = found
        if a.conds[:-1] == b.conds[:-1] and b.conds[-1:] == (f"!({a.conds[-1]})",):
            return f"({ternary(x)} if {a.conds[-1]} else {ternary(y)})"
    return "?"


def ternary(text: str) -> str:
    """`a ? b : c` (one, unnested) as Python's `(b if a else c)`."""
    m = TERNARY.match(squash(text))
    if not m or "?" in m.group(2) + m.group(3):
        return text
    return f"({m.group(2)} if {m.group(1)} else {m.group(3)})"


def not_followed(st: Stmt, call: str, row: dict) -> str:
    """Why the reader does not follow a RoPE call's overrides, or "" when it does."""
    function = st.func.split("(")[0]
    if MTP.search(function):
        return f"in {function}: a multi-token-prediction head, not a main layer"
    if call == "ggml_rope_ext_back":
        return "ggml_rope_ext_back turns the attention output back (de-rope), not q and k"
    unknown = sorted({n for text in (*row["expr"].values(), row["when"] or "")
                      for n in names_in(text)} - set(GRAPH_NAMES))  # fmt: skip
    if unknown:
        return "names what the reader does not read: " + ", ".join(unknown)
    return ""


def names_in(expr: str) -> set[str]:
    """The identifiers of a Python expression (not its string literals or keywords)."""
    text = re.sub(r"'[^']*'", "", expr)
    return set(re.findall(r"\b([A-Za-z_][\w.]*)\b", text)) - {"and", "or", "not", "if", "else"}


def balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


def n_layer(src: Source) -> dict:
    h = src.tree.lines(HPARAMS_CPP)
    s = find(h, r"uint32_t llama_hparams::n_layer\(\) const", HPARAMS_CPP)
    i = find(h, r"return ", HPARAMS_CPP, s)
    g = src.tree.lines(GRAPH)
    used = find(g, r"n_layer\s*\(hparams\.n_layer\(\)\)", GRAPH)
    return {
        "n_layer": plain(re.search(r"return (.*);", h[i]).group(1)),
        "source": loc(HPARAMS_CPP, i),
        "graph_source": loc(GRAPH, used),
        "meaning": "every graph loops il over [0, n_layer()): the last n_layer_nextn blocks of "
        "block_count (n_layer_all) are never run by the main model",
    }


def imrope(src: Source) -> dict:
    """Interleaved M-RoPE (Qwen3-VL): which of the four position streams each pair turns with
    (ggml's CPU rope, the reference the other backends follow), and the streams a text token gets
    (llm_graph_input_pos::set_input: the first three its position, the fourth 0)."""
    ops = src.tree.lines(GGML_CPU_OPS)
    sector = find(ops, r"int sector = \(i0 / 2\) % sect_dims;", GGML_CPU_OPS)
    start = find(ops, r"if \(is_imrope\) \{", GGML_CPU_OPS, sector)
    _, end = body(ops, start, GGML_CPU_OPS)
    branch = re.compile(r"if \(sector % 3 == (\d) && sector < 3 \* sections\[(\d)\]\)")
    streams, pending = [], None
    for i in range(start + 1, end):
        m = branch.search(ops[i])
        if m:
            pending = {"remainder": int(m.group(1)), "section": int(m.group(2)),
                       "source": loc(GGML_CPU_OPS, i)}  # fmt: skip
        elif re.search(r"\}\s*else\s*\{", ops[i]):
            pending = {"otherwise": True, "source": loc(GGML_CPU_OPS, i)}
        m = re.search(r"theta = theta_(\w);", ops[i])
        if m and pending:
            streams.append({"stream": m.group(1), **pending})
            pending = None
    if len(streams) != 4 or not streams[-1].get("otherwise"):
        raise Stop(f"{loc(GGML_CPU_OPS, start)}: not the four branches of interleaved M-RoPE")
    g = src.tree.lines(GRAPH)
    text = find(g, r"pos_data\[3 \* n_tokens \+ i\] = 0;", GRAPH)
    return {
        "sector": {"code": squash(ops[sector]), "source": loc(GGML_CPU_OPS, sector)},
        "streams": tuple(streams),
        "order": "t, h, w, e: the text position, height, width and the fourth (extra) stream",
        "text_positions": {
            "code": squash(clean(g[text])),
            "meaning": "a text token's positions: t, h and w its position, e 0",
            "source": loc(GRAPH, text),
        },
    }


def keys(src: Source) -> dict:
    names = src.tree.lines(ARCH)
    s = find(names, r"LLM_KV_NAMES\s*=\s*\{", ARCH)
    _, e = body(names, s, ARCH)
    kv_names: dict[str, tuple[str, str]] = {}
    for i in range(s, e + 1):
        m = re.search(r'\{\s*(LLM_KV_\w+)\s*,\s*"%s\.([^"]+)"\s*\}', names[i])
        if m:
            kv_names[m.group(1)] = ("{arch}." + m.group(2), loc(ARCH, i))
    h = src.tree.lines(HPARAMS_H)
    functions: list[tuple[str, int, list[Stmt], tuple[str, ...] | str]] = []
    lines = src.tree.lines(MODEL)
    b = find(lines, r"^void llama_model_base::load_hparams\(", MODEL)
    _, be = body(lines, b, MODEL)
    functions.append((MODEL, b, statements(lines, b + 1, be - 1), "*"))
    for hp_cls in sorted(src.hparams_defs):
        rel, s2, stmts = src.hparams_stmts(hp_cls)
        functions.append((rel, s2, stmts, src.archs_of(hp_cls)))
    out: dict[str, dict] = {}
    call = re.compile(r"\b(get_key|get_key_or_arr|get_arr|get_arr_n)\(\s*(LLM_KV_\w+)\s*,")
    for kv in POSITION_KEYS:
        if kv not in kv_names:
            continue
        name, name_src = kv_names[kv]
        reads = []
        for rel, _, stmts, archs in functions:
            for n, st in enumerate(stmts):
                m = call.search(st.text)
                if not m or m.group(2) != kv:
                    continue
                args = read_args(st.text[m.start() :])
                target = args[1]
                read = {
                    "arch": archs,
                    "source": loc(rel, st.line),
                    "target": target.replace("hparams.", ""),
                    "form": {
                        "get_key": "scalar",
                        "get_arr": "array",
                        "get_arr_n": "array length",
                        "get_key_or_arr": or_arr(args),
                    }[m.group(1)],
                    "required": not optional(st.text[m.start() :]),
                    "when": plain_or_none(st),
                }
                fb = fallback(stmts[:n], target, h, rel)
                if fb:
                    read.update(fb)
                reads.append(read)
        out[name] = {"enum": kv, "name_source": name_src, "reads": tuple(reads)}
        targets = {r["target"] for r in reads}
        if reads and all(r["arch"] != "*" for r in reads) and len(targets) == 1:
            unread = member_default(h, targets.pop())
            if unread:  # what every other architecture runs, whatever its file says
                out[name]["unread_default"] = unread
    # llama_rope_scaling_type_from_string: the values rope.scaling.type may take.
    s = find(lines, r"LLAMA_ROPE_SCALING_TYPES\s*=\s*\{", MODEL)
    _, e = body(lines, s, MODEL)
    values = {}
    for i in range(s, e + 1):
        m = re.search(r'\{\s*LLAMA_ROPE_SCALING_TYPE_(\w+)\s*,\s*"([^"]+)"\s*\}', lines[i])
        if m:
            values[m.group(2)] = loc(MODEL, i)
    out["{arch}.rope.scaling.type"]["values"] = values
    return out


def or_arr(args: list[str]) -> str:
    if len(args) < 3 or args[2] in ("false", "true"):
        return "scalar (an array is skipped: returns false, keeps the fallback)"
    if re.fullmatch(r"\d+", args[2]):
        return f"scalar or array of {args[2]}"
    return "scalar or per-layer array"


def fallback(before: list[Stmt], target: str, h: list[str], rel: str) -> dict | None:
    """The value `target` holds when its key is missing: the nearest assignment before the read,
    else the initializer of the hparams member."""
    t = re.escape(target)
    for st in reversed(before):
        if st.header:
            continue
        m = re.search(rf"(?:^|[\s])(?:const\s+)?(?:\w+(?:::\w+)?\s+)?{t}\s*=\s*(.+)$", st.text)
        if m and not re.search(r"(get_key|get_arr)", m.group(1)):
            return {"fallback": key_of(m.group(1)), "fallback_source": loc(rel, st.line)}
        m = re.search(rf"(?:std::string|\w+)\s+{t}\s*\((.+)\)$", st.text)
        if m:
            raw = re.search(r'\("([^"]*)"\)', src_line(rel, st.line))
            value = raw.group(1) if raw else number(m.group(1))
            return {"fallback": value, "fallback_source": loc(rel, st.line)}
        m = re.search(rf"std::fill\({t}\.begin\(\),\s*{t}\.end\(\),\s*(.+)\)$", st.text)
        if m:
            return {"fallback": number(m.group(1)), "fallback_source": loc(rel, st.line)}
        m = re.search(rf"{t}\s*=\s*$", st.text)
        if m:
            break
    found = member_default(h, target.replace("hparams.", ""))
    return {"fallback": found["value"], "fallback_source": found["source"]} if found else None


def member_default(h: list[str], member: str) -> dict | None:
    """The initializer of a llama_hparams member (llama-hparams.h), with its line."""
    if re.fullmatch(r"\w+", member):
        for i, line in enumerate(h):
            m = re.search(rf"^\s*[\w:<>, ]+\s+{member}\s*=\s*([^;]+);", line)
            if m:
                return {"value": number(m.group(1)), "source": loc(HPARAMS_H, i)}
    return None


_TREE: list[Tree] = []


def src_line(rel: str, i: int) -> str:
    return _TREE[0].lines(rel)[i]


def attention_factor(src: Source) -> dict:
    ctx = src.tree.lines(CONTEXT)

    def at(pattern: str, meaning: str, start: int = 0) -> dict:
        i = find(ctx, pattern, CONTEXT, start)
        return {"code": squash(clean(ctx[i])), "meaning": meaning, "source": loc(CONTEXT, i)}

    steps = {
        "1_user": at(
            r"cparams\.yarn_attn_factor\s*=\s*params\.yarn_attn_factor",
            "start from the user's yarn_attn_factor, else rope.scaling.yarn_attn_factor (1.0)",
        ),
        "2_ext_factor": at(
            r"cparams\.yarn_ext_factor = rope_scaling_type == LLAMA_ROPE_SCALING_TYPE_YARN",
            "YaRN ramp on (ext_factor 1) only when the scaling type is yarn",
        ),
        "3_get_mscale": at(
            r"return scale <= 1\.0f \? 1\.0f :",
            "get_mscale(s, m) = 1 if s <= 1 else 0.1*m*ln(s) + 1",
        ),
        "4_factor": at(
            r"const float factor = 1\.0f / cparams\.rope_freq_scale", "s = rope.scaling.factor"
        ),
        "5_mscale_all_dims": at(
            r"const float mscale_all_dims = hparams\.rope_yarn_log_mul",
            "with rope.scaling.yarn_log_multiplier: mscale = 1, mscale_all_dims = log_mul",
        ),
        "6_deepseek2": at(
            r"if \(model\.arch == LLM_ARCH_DEEPSEEK2 && mscale_all_dims != 1\.0f\)",
            "DeepSeek-V2: mscale = mscale_all_dims, so the ratio below is 1 (they cancel) and "
            "the graph puts mscale^2 into kq_scale instead",
        ),
        "7_ratio": at(
            r"cparams\.yarn_attn_factor = get_mscale\(factor, mscale\) / "
            r"get_mscale\(factor, mscale_all_dims\)",
            "attn_factor = get_mscale(s, mscale) / get_mscale(s, mscale_all_dims)",
        ),
        "8_plain": at(
            r"cparams\.yarn_attn_factor = get_mscale\(factor, 1\.0f\)",
            "without log_mul: attn_factor = 0.1*ln(s) + 1",
        ),
        "9_cancel": at(
            r"cparams\.yarn_attn_factor \*= 1\.0f / \(1\.0f \+ 0\.1f \* logf\(factor\)\)",
            "divide by ggml's own YaRN mscale (1 + 0.1 ln s), which ggml_rope_yarn multiplies in",
        ),
        "10_rope_attn_factor": at(
            r"cparams\.yarn_attn_factor \*= hparams\.rope_attn_factor",
            "times rope.scaling.attn_factor (1.0 when missing), YaRN or not",
        ),
    }
    ds = "src/models/deepseek2.cpp"
    d = src.tree.lines(ds)
    fix = find(d, r"hparams\.rope_yarn_log_mul /= 0\.1f", ds)
    org = find(
        d,
        r"const float attn_factor_org = attn_factor \* "
        r"\(1\.0f \+ 0\.1f \* logf\(1\.0f / freq_scale\)\)",
        ds,
    )
    msc = find(
        d,
        r"const float mscale\s*=\s*attn_factor_org \* "
        r"\(1\.0f \+ 0\.1f \* hparams\.rope_yarn_log_mul",
        ds,
        org,
    )
    kq = find(d, r"const float kq_scale = 1\.0f \* mscale \* mscale / sqrtf", ds, msc)
    steps["11_deepseek2_key"] = {
        "code": squash(clean(d[fix])),
        "meaning": "DeepSeek GGUFs store 0.1*mscale_all_dim; llama.cpp divides it back",
        "source": loc(ds, fix),
    }
    conv = "conversion/deepseek.py"
    c = src.tree.lines(conv)
    w = find(c, r"add_rope_scaling_yarn_log_mul\(0\.1 \*", conv)
    steps["11_deepseek2_key"]["writer"] = {"code": squash(c[w]), "source": loc(conv, w)}
    steps["12_deepseek2_kq_scale"] = {
        "code": squash(clean(d[msc])) + " " + squash(clean(d[kq])),
        "meaning": "DeepSeek graphs undo step 9, then scale attention logits by "
        "(attn_factor_org * (1 + 0.1*log_mul*ln s))^2 / sqrt(d_k)",
        "source": loc(ds, org),
        "sources": (loc(ds, org), loc(ds, msc), loc(ds, kq)),
    }
    return {
        "formula": "YaRN (ext_factor != 0): attn_factor = (log_mul ? get_mscale(s, m) / "
        "get_mscale(s, log_mul) with m = log_mul for deepseek2 (when != 1) else 1 : "
        "get_mscale(s, 1)) / (1 + 0.1 ln s) * rope_attn_factor, where get_mscale(s, m) = 1 if "
        "s <= 1 else 1 + 0.1 m ln s and s = rope.scaling.factor; ggml then multiplies by "
        "(1 + 0.1 ln s) again. Not YaRN: "
        "attn_factor = yarn_attn_factor * rope_attn_factor.",
        "steps": steps,
    }


# --------------------------------------------------------------------------------------------
# Writing


def render(tree: Tree, mirror: str) -> str:
    src = Source(tree)
    _TREE[:] = [tree]
    rope_args = graph_rope_args(src)
    tables = [
        ("COMMIT", "The llama.cpp commit every file:line below refers to.", tree.commit),
        ("MIRROR", "The GitHub repository the commit was read from.", mirror),
        (
            "ARCH_NAMES",
            "LLM_ARCH_* -> its GGUF name (general.architecture), LLM_ARCH_NAMES.",
            arch_names(src),
        ),
        (
            "ROPE_TYPES",
            "GGUF architecture -> the pairing llama_model_rope_type returns: norm "
            "(adjacent pairs), neox (half-split), mrope, imrope, vision, none; `conditional` when "
            "the return depends on the GGUF (`when` as a Python expression over hparams).",
            rope_types(src),
        ),
        (
            "USE_MROPE",
            "hparams.use_mrope(), the condition of the conditional rope types.",
            use_mrope(src),
        ),
        (
            "SWA_SEMANTICS",
            "What the sliding-window fields mean (llama-hparams.h/.cpp).",
            swa_semantics(src),
        ),
        (
            "SWA",
            "GGUF architecture -> the sliding window its load_arch_hparams sets: swa_type, the "
            "window (`window_default` when attention.sliding_window is missing), `layers` (which "
            "layers slide: dense_last_of_period = every n_pattern-th layer is global; n_pattern "
            "from attention.sliding_window_pattern, else `n_pattern_default`), `disabled`.",
            swa(src),
        ),
        (
            "NO_ROPE_LAYERS",
            "GGUF architecture -> the layers its graph rotates (`rope_if`, a Python "
            "expression over il, n_layer and hparams fields; is_swa(il) is SWA['layers']), and the "
            "recurrent layers that have no attention at all.",
            no_rope(src),
        ),
        (
            "THETA",
            "RoPE bases: llama.cpp's defaults, and per architecture the base and scale of "
            "SWA layers (`swa_base_fallback` when rope.freq_base_swa is missing) and overrides.",
            theta(src),
        ),
        (
            "GRAPH_ROPE_ARGS",
            "GGUF architecture -> the RoPE calls of its graph that pass their own freq_base, "
            "freq_scale, ext_factor, attn_factor or beta in place of the graph's shared ones: "
            "`set` (numbers; ggml_rope's own from ggml.c, `defaults`) and `expr` (Python over "
            "GRAPH_ROPE_NAMES, its C++ in `code`), under `when` (as `rope_if`).",
            rope_args[0],
        ),
        (
            "GRAPH_ROPE_SKIPPED",
            "Every RoPE call with overrides the reader does not follow, with its file:line and "
            "why (multi-token-prediction heads, de-rope, names it does not read).",
            rope_args[1],
        ),
        (
            "GRAPH_ROPE_NAMES",
            "The names an `expr` or `when` of GRAPH_ROPE_ARGS may use (the reader's).",
            GRAPH_NAMES,
        ),
        (
            "N_LAYER",
            "The layers the graph builds: n_layer() leaves out the NextN (MTP) blocks that "
            "block_count counts (read from nextn_predict_layers, see KEYS).",
            n_layer(src),
        ),
        (
            "IMROPE",
            "Interleaved M-RoPE: the position stream each pair turns with, and a text token's.",
            imrope(src),
        ),
        (
            "KEYS",
            "GGUF key -> where llama.cpp reads it (arch '*' = every architecture), whether "
            "required, the `fallback` when missing, and the condition it is read under.",
            keys(src),
        ),
        (
            "ATTENTION_FACTOR",
            "How llama_context computes the YaRN attention factor (mscale).",
            attention_factor(src),
        ),
    ]
    head = (
        '"""Generated by scripts/llamacpp_tables.py from llama.cpp\'s C++ source: do not edit.\n'
        f"Mirror {mirror}, commit {tree.commit};\n"
        "every `source` is a file:line at that commit. Regenerate with\n"
        "python -m scripts.llamacpp_tables LLAMA_CPP_GIT_DIR (--check: exit 1 when stale).\n"
        "Python expressions (`when`, `rope_if`, `swa_if`) range over il, n_layer, arch and the\n"
        "llama_hparams fields (is_swa(il), is_recr(il), n_swa, n_head_kv(il), ...).\n"
        '"""\n\n# fmt: off\n'
    )
    parts = [head]
    for name, doc, value in tables:
        parts.append(f"\n# {doc}\n" if len(doc) < 96 else "\n" + wrap_comment(doc))
        parts.append(f"{name} = {pprint.pformat(value, width=99, sort_dicts=True)}\n")
    return "".join(parts)


def wrap_comment(text: str) -> str:
    out, line = [], "#"
    for word in text.split():
        if len(line) + 1 + len(word) > 99:
            out.append(line)
            line = "#"
        line += " " + word
    out.append(line)
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("llama_cpp", help="llama.cpp git directory or checkout")
    ap.add_argument("--check", action="store_true", help="exit 1 when the module is stale")
    ap.add_argument("--commit", help="commit to read (default HEAD)")
    ap.add_argument("--mirror", default=MIRROR, help="repository name recorded in the module")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    try:
        text = render(Tree(args.llama_cpp, args.commit), args.mirror)
    except Stop as e:
        print(f"llamacpp_tables: {e}", file=sys.stderr)
        return 2
    return write_or_check(args.out, text, "llamacpp_tables", args.check)


if __name__ == "__main__":
    sys.exit(main())
