#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The shared library exports the public API, no more and no less.

    exports.py NM LIBRARY INCLUDE_DIR

The public API is every function and variable declared in
INCLUDE_DIR/rcuproc/*.h (static inline functions are not symbols), and each
of those declarations carries RP_API (rcuproc/export.h): the library is
compiled with hidden visibility, so an unmarked function is not exported.
The library's exports are the dynamic symbols it defines (NM -D
--defined-only), less the version nodes of its version script.

Fails, naming each symbol, on:
  - a declaration in a public header without RP_API;
  - a public function or variable the library does not export (no RP_API,
    or no definition in the library);
  - an export no public header declares (RP_API on an internal function).
Run by `meson test exports` (docs/architecture.md, "The library boundary").
"""
import glob
import os
import re
import subprocess
import sys

IDENT = re.compile(r'[A-Za-z_]\w*')


def statements(text):
    """The header's top-level declarations, without comments, preprocessor
    lines and the bodies of definitions; a definition is cut at its '{'."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    text = re.sub(r'\\\n', ' ', text)
    # extern "C" { and its } are for C++ compilers only.
    text = re.sub(r'#ifdef __cplusplus.*?#endif', ' ', text, flags=re.S)
    text = re.sub(r'^\s*#[^\n]*', ' ', text, flags=re.M)
    out, current, depth = [], [], 0
    for c in text:
        if c == '{':
            if depth == 0:
                out.append((''.join(current), True))
                current = []
            depth += 1
        elif c == '}':
            depth -= 1
        elif depth == 0:
            if c == ';':
                out.append((''.join(current), False))
                current = []
            else:
                current.append(c)
    return out


def declared(path):
    """{name: marked with RP_API} for the functions and variables @path declares."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    names = {}
    for stmt, is_definition in statements(text):
        words = IDENT.findall(stmt)
        if (is_definition or not words or 'static' in words or 'typedef' in words
                or words[0] in ('struct', 'union', 'enum') and '(' not in stmt
                and len(words) <= 2):
            continue
        pointer = re.search(r'\(\s*\*\s*([A-Za-z_]\w*)\s*\)', stmt)
        function = re.search(r'([A-Za-z_]\w*)\s*\(', stmt)
        if pointer:
            name = pointer.group(1)
        elif function:
            name = function.group(1)
        else:
            name = IDENT.findall(re.split(r'[\[=]', stmt)[0])[-1]
        names[name] = 'RP_API' in words
    return names


def exported(nm, library):
    """The dynamic symbols @library defines, less its version nodes."""
    out = subprocess.run([nm, '-D', '--defined-only', library], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 3 or fields[1] == 'A':
            continue
        names.add(fields[2].split('@')[0])
    return names


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    nm, library, include = argv[1:]
    public, where = {}, {}
    for path in sorted(glob.glob(os.path.join(include, 'rcuproc', '*.h'))):
        for name, marked in declared(path).items():
            public[name] = marked
            where[name] = os.path.relpath(path, include)
    exports = exported(nm, library)
    problems = ['unmarked: %s (%s) is declared without RP_API' % (name, where[name])
                for name, marked in sorted(public.items()) if not marked]
    problems += ['missing: %s (%s) is not exported' % (name, where[name])
                 for name in sorted(set(public) - exports)]
    problems += ['extra: %s is exported but declared in no public header' % name
                 for name in sorted(exports - set(public))]
    for line in problems:
        print(line)
    if problems:
        print('exports: %d problems; the library boundary: docs/architecture.md'
              % len(problems))
        sys.exit(1)
    print('exports: %d symbols, each declared RP_API in include/rcuproc/' % len(exports))


if __name__ == '__main__':
    main(sys.argv)
