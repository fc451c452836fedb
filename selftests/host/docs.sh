#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# Every Documentation/*.rst is valid reStructuredText: docutils parses it
# with no warning or error (report level 2), so a malformed table or a
# short title underline fails here rather than in a rendered page.
#
# Usage: selftests/host/docs.sh [DIR]   check DIR/*.rst instead
#
# The one Sphinx directive the docs use, toctree (index.rst), is known to
# the parser below as an allowed directive: its entries must name .rst
# files in the same directory, and any other unknown directive or role is
# still reported.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${1:-$ROOT/Documentation}

# python3-docutils (make setup) is for /usr/bin/python3; a python3 found
# first on PATH may have its own docutils
PY=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import docutils' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "SKIP: no python3 with docutils (python3-docutils, make setup)"; exit 4; }

"$PY" - "$DIR" <<'PY'
import glob, io, os, sys

import docutils.core
from docutils.parsers.rst import Directive, directives

# Sphinx directives the docs legitimately use, nothing else.
class TocTree(Directive):
    has_content = True
    option_spec = {
        'maxdepth': directives.nonnegative_int,
        'caption': directives.unchanged_required,
        'numbered': directives.unchanged,
        'titlesonly': directives.flag,
        'hidden': directives.flag,
    }

    def run(self):
        here = os.path.dirname(self.state.document.current_source)
        msgs = []
        for entry in self.content:
            entry = entry.strip()
            if entry and not os.path.exists(os.path.join(here, entry + '.rst')):
                msgs.append(self.state_machine.reporter.error(
                    'toctree entry "%s": no %s.rst' % (entry, entry),
                    line=self.lineno))
        return msgs

directives.register_directive('toctree', TocTree)

docdir = sys.argv[1]
files = sorted(glob.glob(os.path.join(docdir, '*.rst')))
if not files:
    print('FAIL: no .rst file in %s' % docdir)
    sys.exit(1)

bad = 0
for path in files:
    name = os.path.relpath(path)
    stream = io.StringIO()
    with open(path, encoding='utf-8') as f:
        text = f.read()
    docutils.core.publish_doctree(text, source_path=name, settings_overrides={
        'report_level': 2,	# warnings and errors
        'halt_level': 5,	# never stop: report every message
        'warning_stream': stream,
        'file_insertion_enabled': False,
        'raw_enabled': False,
    })
    if stream.getvalue():
        bad += 1
        print('FAIL: %s is not valid reStructuredText:' % name)
        print(stream.getvalue().rstrip())
    else:
        print('ok: %s' % name)
print('%d of %d files with docutils %s warnings or errors'
      % (bad, len(files), docutils.__version__))
sys.exit(1 if bad else 0)
PY
