#!/usr/bin/env python3
"""Rewrites the source comments' citations of the external SPEC.md (`SPEC §10.7`, `§A.21`) into
citations of the documentation this repository owns (`docs/REFERENCE.md#sync`).

    python3 docs/spec-map.py [--dry-run] [--map docs/spec-map.tsv] [--root <repo>] <dir>

Every `*.rs` file under <dir> is read; each citation docs/spec-map.tsv names is replaced, and
nothing else changes. It prints how many citations it replaced, the entries that matched nothing,
every `SPEC §` or bare `§n` left, the lines that still say SPEC without a section, and the lines
a replacement made longer than 120 columns.

The map: one entry a line, the cited text, a TAB, its replacement.
- Plain entries are one per section the code cites, as `SPEC §n`, and as `§n` where the code
  cites it without "SPEC"; a bare `§n` without an entry of its own maps as `SPEC §n` does.
- Longer entries win over shorter ones at the same place: ranges and lists that name one subject
  (`SPEC §6.7–§6.9`), a section with its qualifier (`SPEC §0 rule 6`, `SPEC §A.27 "Modes"`), and a
  few citations with the words around them where the plain target would point at the wrong
  subject. The words of an entry that are not citations may be dropped (a qualifier) but never
  added to or changed: an entry breaking that rule is refused, so a run touches only citations.
- An entry that starts with `SPEC` or `§` also matches across a line break inside a `//`
  comment (`(SPEC` at a line's end, `/// §A.24)` on the next); the replacement then starts the
  next line, and the blanks the citation leaves at the end of the first line are dropped.
- Other documents' sections are never touched: `TECH-NOTES §2.2 and §6.6`, `HOSTS.md` §2`.
- Every replacement must name a file of the repository (`--root`, default: this script's
  repository) and, after `#`, a heading of that file as GitHub makes anchors.
"""

import argparse
import os
import re
import sys

SEC = r"§[A0-9](?:[0-9.]*[0-9])?"
CITE = re.compile(r"(?:SPEC\s+)?" + SEC)
TARGET = re.compile(r"docs/[A-Za-z0-9_.-]+\.md(?:#[A-Za-z0-9_-]+)?")
# A space of a citation entry: blanks, or a line break inside a `//`, `///` or `//!` comment.
GAP = r"(?:[ \t]+|[ \t]*\n[ \t]*(?://[/!]?)?[ \t]*)"
OTHER_DOCS = re.compile(
    r"(?:TECH-NOTES|HOSTS\.md`?)" + GAP + SEC + r"(?:(?:," + GAP + r"|" + GAP + r"and" + GAP + r")" + SEC + r")*"
)
LEFT = re.compile(r"SPEC" + GAP + r"§|" + SEC)
WIDTH = 120


def tokens(s):
    return re.findall(r"\w+|[^\w\s]", s)


def is_subsequence(small, big):
    it = iter(big)
    return all(any(t == b for b in it) for t in small)


def slugs(path):
    """The anchors GitHub gives the headings of a Markdown file."""
    out, seen, fence = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fence = not fence
                continue
            m = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def load(map_path, root):
    entries, problems = {}, []
    with open(map_path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            where = f"{map_path}:{number}"
            if len(parts) != 2 or not parts[0] or not parts[1]:
                problems.append(f"{where}: not <cited text><TAB><replacement>")
                continue
            key, value = parts
            if not CITE.search(key):
                problems.append(f"{where}: {key!r} cites no section")
            targets = TARGET.findall(value)
            if not targets:
                problems.append(f"{where}: {value!r} names no docs/<file>.md")
            rest_key, rest_value = tokens(CITE.sub(" ", key)), tokens(TARGET.sub(" ", value))
            if not is_subsequence(rest_value, rest_key):
                problems.append(f"{where}: the replacement adds or changes words: {value!r}")
            for t in targets:
                file, _, anchor = t.partition("#")
                path = os.path.join(root, file)
                if not os.path.isfile(path):
                    problems.append(f"{where}: {file} does not exist under {root}")
                elif anchor and anchor not in slugs(path):
                    problems.append(f"{where}: {file} has no heading #{anchor}")
            if key in entries and entries[key] != value:
                problems.append(f"{where}: {key!r} is mapped twice")
            entries[key] = value
    for key, value in list(entries.items()):
        m = re.fullmatch(r"SPEC (" + SEC + r")", key)
        if m and m.group(1) not in entries:
            entries[m.group(1)] = value
    return entries, problems


def pattern(key):
    citation_only = key.startswith("SPEC") or key.startswith("§")
    if citation_only:
        body = GAP.join(re.escape(part) for part in key.split(" "))
    else:
        body = re.escape(key)
    if re.match(r"\w", key):
        body = r"(?<!\w)" + body
    if key[-1].isdigit():
        body += r"(?![0-9]|\.[0-9])"
    return body


def rewrite(text, entries, keys, regex, counts):
    protected = [m.span() for m in OTHER_DOCS.finditer(text)]
    out, at, n = [], 0, 0
    for m in regex.finditer(text):
        start, end = m.span()
        if any(start < b and a < end for a, b in protected):
            continue
        key = keys[int(m.lastgroup[1:])]
        value = entries[key]
        out.append(text[at:start])
        found = m.group(0)
        if "\n" in found:
            # The citation began at a line's end: the replacement starts the next line.
            out[-1] = out[-1].rstrip(" \t")
            tail = found[found.rfind("\n"):]
            value = re.match(r"\n[ \t]*(?://[/!]?)?[ \t]*", tail).group(0) + value
        out.append(value)
        at = end
        n += 1
        counts[key] = counts.get(key, 0) + 1
    out.append(text[at:])
    return "".join(out), n


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="the directory whose *.rs files are rewritten")
    ap.add_argument("--map", default=os.path.join(here, "spec-map.tsv"))
    ap.add_argument("--root", default=os.path.dirname(here), help="the repository the targets name files of")
    ap.add_argument("--dry-run", action="store_true", help="report, write nothing")
    a = ap.parse_args()

    entries, problems = load(a.map, a.root)
    if problems:
        print("spec-map: the map is not usable:", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 2
    keys = sorted(entries, key=lambda k: (-len(k), k))
    regex = re.compile("|".join(f"(?P<k{i}>{pattern(k)})" for i, k in enumerate(keys)))

    counts, total, changed, scanned = {}, 0, 0, 0
    left, mentions, long_lines = [], [], []
    for dirpath, dirnames, filenames in os.walk(a.dir):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8", newline="") as f:
                text = f.read()
            scanned += 1
            new, n = rewrite(text, entries, keys, regex, counts)
            if n:
                total += n
                changed += 1
                if not a.dry_run:
                    with open(path, "w", encoding="utf-8", newline="") as f:
                        f.write(new)
            protected = [m.span() for m in OTHER_DOCS.finditer(new)]
            for m in LEFT.finditer(new):
                if not any(s <= m.start() < e for s, e in protected):
                    line = new.count("\n", 0, m.start()) + 1
                    left.append(f"{path}:{line}: {new.splitlines()[line - 1].strip()}")
            old_lines = set(text.splitlines())
            for number, line in enumerate(new.splitlines(), 1):
                if "SPEC" in line and "§" not in line:
                    mentions.append(f"{path}:{number}: {line.strip()}")
                if len(line) > WIDTH and line not in old_lines:
                    long_lines.append(f"{path}:{number}: {len(line)} columns")

    verb = "would replace" if a.dry_run else "replaced"
    print(f"spec-map: {verb} {total} citation(s) in {changed} of {scanned} .rs file(s) under {a.dir}")
    unused = [k for k in keys if k not in counts and not re.fullmatch(SEC, k)]
    plain = [k for k in unused if re.fullmatch("SPEC " + SEC, k)]
    other = [k for k in unused if k not in plain]
    if plain:
        print(f"plain entries that matched nothing: sections cited only inside longer entries, or already rewritten ({len(plain)}):")
        print("  " + ", ".join(plain))
    if other:
        print(f"entries that matched nothing ({len(other)}):")
        for k in other:
            print(f"  {k}")
    print(f"SPEC § or § left ({len(left)}):")
    for x in left:
        print(f"  {x}")
    if mentions:
        print(f"SPEC mentioned without a section ({len(mentions)}; not rewritten):")
        for x in mentions:
            print(f"  {x}")
    if long_lines:
        print(f"lines a replacement made longer than {WIDTH} columns ({len(long_lines)}):")
        for x in long_lines:
            print(f"  {x}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
