#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Which library sources an RP_BREAK_* switch changes.

    broken-sources.py [--none-ok] SWITCH INCLUDE_DIR... -- SOURCE...

Prints, one a line, the index (from 0) of each SOURCE whose compilation the
switch can change: the file, or a project header it includes (directly or
through other project headers, found in its own folder or an INCLUDE_DIR),
tests RP_BREAK_SWITCH in an #if, #ifdef, #ifndef or #elif.  The build
compiles only those sources again for the switch's broken library and takes
the library's own objects for the rest (tests/meson.build), which is a
sixth of the compiles.  The broken matrix's test programs are asked the
same with --none-ok (most tests do not see the switch, and then their
correct build's objects are linked with the broken library).  A header outside the project cannot test a switch
of ours, so system includes are not followed.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def resolve(name, here, dirs):
    for d in [here] + dirs:
        path = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(path):
            return path
    return None


def affected(source, test, dirs, seen):
    if source in seen:
        return False
    seen.add(source)
    with open(source, encoding='utf-8') as f:
        text = f.read()
    if test.search(text):
        return True
    here = os.path.dirname(source)
    for name in INCLUDE.findall(text):
        path = resolve(name, here, dirs)
        if path and affected(path, test, dirs, seen):
            return True
    return False


def main(argv):
    none_ok = len(argv) > 1 and argv[1] == '--none-ok'
    if none_ok:
        argv = argv[:1] + argv[2:]
    if len(argv) < 3 or '--' not in argv:
        sys.exit(__doc__)
    switch = argv[1]
    split = argv.index('--')
    dirs, sources = argv[2:split], argv[split + 1:]
    test = re.compile(r'^\s*#\s*(if|ifdef|ifndef|elif)\b.*\bRP_BREAK_%s\b' % re.escape(switch),
                      re.M)
    hits = [i for i, s in enumerate(sources) if affected(s, test, dirs, set())]
    if not hits and not none_ok:
        sys.exit('RP_BREAK_%s changes no library source: a misspelt switch?' % switch)
    print('\n'.join(str(i) for i in hits))


if __name__ == '__main__':
    main(sys.argv)
