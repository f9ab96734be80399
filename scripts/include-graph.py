#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The include graph of the library and its floors (docs/architecture.md).

    include-graph.py [--root DIR] [--arrows | --dot]

Reads every .c and .h file under src/ and include/, resolves each
#include "..." against the including file's folder, then src/, then
include/ (and #include <...> against include/ only: a system header is no
arrow), and checks the floor table FLOORS below, the one place the floors
are written down:

  - every folder holding a source has a floor;
  - no file includes one from a higher floor (an upward arrow);
  - no circle crosses folders: the folder graph (an arrow from folder A to
    folder B when a file of A includes a file of B) has no strongly
    connected component of two folders or more.  Circles inside one folder
    are allowed; sideways arrows (same floor) are, as long as they make no
    circle.

A quoted include that resolves nowhere is an error too, and so is a header
of src/ that declares a function another folder defines: either would hide
an arrow.  A .c file that includes another folder's header calls into that
folder, so the include arrows are the call arrows.

Exit status 0 when the graph is clean (one summary line); 1 with every
offending edge otherwise.  --arrows prints the folder arrows with the files
behind each; --dot prints the folder graph for graphviz, one cluster a floor.
"""
import argparse
import os
import re
import sys

# The floor table: floor number, name, folders.  An arrow may point down
# (to a lower number) or sideways (same number, no circle), never up.
FLOORS = [
    (0, 'interface', ['include/rcuproc']),
    (1, 'debug', ['src/debug']),
    (2, 'sync', ['src/sync']),
    (3, 'object model', ['src/task']),
    (4, 'subsystems', ['src/signal', 'src/pgrp', 'src/timers', 'src/tty']),
    (5, 'life cycle', ['src/proc']),
    (6, 'entry points', ['src/sys']),
    (7, 'verification', ['src/verify']),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
# A function declared or defined at the start of a line (not static).
FUNCTION = re.compile(r'^(?!static\b|typedef\b|extern\b|return\b)[A-Za-z_][\w \t*]*?\b(rp_\w+)\(',
                      re.M)
SCANNED = ['src', 'include']


def floor_of():
    table = {}
    for number, name, folders in FLOORS:
        for folder in folders:
            table[folder] = (number, name)
    return table


def sources(root):
    for top in SCANNED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(('.c', '.h')):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def resolve(root, including, name, quoted):
    dirs = [os.path.dirname(including), 'src', 'include'] if quoted else ['include']
    for d in dirs:
        path = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(root, path)):
            return path
    return None


def file_edges(root):
    """The include arrows between files, and the quoted includes found nowhere."""
    edges, unresolved = [], []
    for path in sources(root):
        with open(os.path.join(root, path), encoding='utf-8') as f:
            text = f.read()
        for kind, name in INCLUDE.findall(text):
            target = resolve(root, path, name, kind == '"')
            if target:
                edges.append((path, target))
            elif kind == '"':
                unresolved.append((path, name))
    return edges, unresolved


def misplaced_declarations(root):
    """Functions a header of src/ declares that another folder defines.

    Such a header would hide an arrow: its includers call into a folder
    they do not include.  Public headers (include/) are exempt.
    """
    defined, declared = {}, []
    for path in sources(root):
        if not path.startswith('src' + os.sep):
            continue
        with open(os.path.join(root, path), encoding='utf-8') as f:
            names = FUNCTION.findall(f.read())
        if path.endswith('.c'):
            for name in names:
                defined.setdefault(name, set()).add(os.path.dirname(path))
        else:
            declared += [(path, name) for name in names]
    return ['declared: %s declares %s, defined in %s' % (path, name, ' '.join(sorted(
        defined[name]))) for path, name in declared
        if name in defined and os.path.dirname(path) not in defined[name]]


def sccs(nodes, succ):
    """Tarjan's strongly connected components (iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(succ.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(succ.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        n = stack.pop()
                        on_stack.discard(n)
                        comp.append(n)
                        if n == node:
                            break
                    out.append(sorted(comp))
    return out


def dot(folders, arrows):
    lines = ['digraph floors {', '\trankdir=BT;', '\tnode [shape=box];']
    for number, name, members in sorted(FLOORS, reverse=True):
        lines.append('\tsubgraph cluster_%d {' % number)
        lines.append('\t\tlabel="%d %s";' % (number, name))
        for folder in members:
            if folder in folders:
                lines.append('\t\t"%s";' % folder)
        lines.append('\t}')
    for (a, b) in sorted(arrows):
        lines.append('\t"%s" -> "%s";' % (a, b))
    lines.append('}')
    return '\n'.join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--root', default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    out = parser.add_mutually_exclusive_group()
    out.add_argument('--arrows', action='store_true', help='print the folder arrows')
    out.add_argument('--dot', action='store_true', help='print the folder graph as dot')
    args = parser.parse_args()

    floors = floor_of()
    edges, unresolved = file_edges(args.root)
    folders = {os.path.dirname(p) for p in sources(args.root)}
    arrows = {}
    for a, b in edges:
        fa, fb = os.path.dirname(a), os.path.dirname(b)
        if fa != fb:
            arrows.setdefault((fa, fb), []).append((a, b))

    if args.dot:
        print(dot(folders, arrows))
        return 0
    if args.arrows:
        for (fa, fb), files in sorted(arrows.items()):
            print('%s -> %s' % (fa, fb))
            for a, b in files:
                print('\t%s -> %s' % (a, b))
        return 0

    problems = ['unresolved: %s includes "%s", found in neither its folder, src/ nor '
                'include/' % (path, name) for path, name in unresolved]
    problems += misplaced_declarations(args.root)
    for folder in sorted(folders - set(floors)):
        problems.append('%s: no floor; add it to FLOORS in scripts/include-graph.py' % folder)
    for (fa, fb), files in sorted(arrows.items()):
        if fa in floors and fb in floors and floors[fa][0] < floors[fb][0]:
            for a, b in files:
                problems.append('upward: %s -> %s (floor %d %s -> floor %d %s)' % (
                    a, b, floors[fa][0], floors[fa][1], floors[fb][0], floors[fb][1]))
    succ = {}
    for fa, fb in arrows:
        succ.setdefault(fa, set()).add(fb)
    for comp in sccs(folders, succ):
        if len(comp) < 2:
            continue
        # Arrows down cannot close a circle: the ones that point up or
        # sideways inside the component do.
        problems.append('circle across folders: %s; closed by:' % ' '.join(comp))
        for (fa, fb), files in sorted(arrows.items()):
            if fa in comp and fb in comp and floors.get(fa, (0,))[0] <= floors.get(fb, (0,))[0]:
                for a, b in files:
                    problems.append('\t%s -> %s' % (a, b))
    if problems:
        print('\n'.join(problems))
        print('include-graph: %d problem lines; floors in scripts/include-graph.py, '
              'see docs/architecture.md' % len(problems), file=sys.stderr)
        return 1
    print('include-graph: %d files, %d includes, %d folder arrows: all point down or '
          'sideways, no circle across folders' % (len(list(sources(args.root))), len(edges),
                                                  len(arrows)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
