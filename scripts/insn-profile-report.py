#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read make profile's counts (scripts/profile.sh): guest instructions per
packet by kernel function, the difference of two profiles by function, or
one function's instructions by source line or one by one (the
instructions run at least once per 20 packets, in address order).

  insn-profile-report.py symbols PREFIX [TOP]
  insn-profile-report.py diff PREFIX_A PREFIX_B [TOP]
  insn-profile-report.py lines PREFIX MODULE.ko FUNCTION
  insn-profile-report.py insns PREFIX MODULE.ko FUNCTION

PREFIX is build/profile/TAG: PREFIX.counts (hex address, count),
PREFIX.kallsyms (the guest's text symbols) and PREFIX.packets.  "lines"
needs the module built with debug information, as the tree builds it, and
objdump; its source lines are those of the module as built now.
"""
import bisect
import collections
import re
import subprocess
import sys


class Profile:
    def __init__(self, prefix):
        self.syms = []
        with open(prefix + '.kallsyms', errors='replace') as f:
            for line in f:
                p = line.split()
                if len(p) >= 3:
                    mod = p[3] if len(p) > 3 else ''
                    self.syms.append((int(p[0], 16), p[2], mod))
        self.syms.sort()
        self.addrs = [s[0] for s in self.syms]
        self.counts = {}
        with open(prefix + '.counts') as f:
            for line in f:
                if line.startswith('#'):
                    sys.stderr.write(prefix + '.counts: ' + line)
                    continue
                a, c = line.split()
                self.counts[int(a, 16)] = int(c)
        with open(prefix + '.packets') as f:
            self.packets = int(f.read().split()[0])
        if self.packets <= 0:
            sys.exit(prefix + '.packets: no packets were sent')

    def symbol_of(self, addr):
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return '?'
        _, name, mod = self.syms[i]
        return name + (' ' + mod if mod else '')

    def by_symbol(self):
        tot = collections.Counter()
        for a, c in self.counts.items():
            tot[self.symbol_of(a)] += c
        return {k: v / self.packets for k, v in tot.items()}

    def start_of(self, name):
        for a, n, mod in self.syms:
            if n == name and mod:
                return a
        sys.exit('no module function %s in the profile' % name)


def symbols(prefix, top=40):
    p = Profile(prefix)
    per = p.by_symbol()
    print('# %s: %d packets; guest kernel instructions per packet, by '
          'function (the whole boot is counted)' % (prefix, p.packets))
    print('# all functions: %.1f' % sum(per.values()))
    for name, v in sorted(per.items(), key=lambda kv: -kv[1])[:top]:
        print('%9.1f  %s' % (v, name))


def diff(prefix_a, prefix_b, top=30):
    a, b = Profile(prefix_a).by_symbol(), Profile(prefix_b).by_symbol()
    d = {k: a.get(k, 0) - b.get(k, 0) for k in set(a) | set(b)}
    print('# per packet: A = %s, B = %s; A - B over all functions %.1f'
          % (prefix_a, prefix_b, sum(d.values())))
    print('#   A - B        A        B  function')
    for k, v in sorted(d.items(), key=lambda kv: -abs(kv[1]))[:top]:
        print('%9.1f %8.1f %8.1f  %s' % (v, a.get(k, 0), b.get(k, 0), k))


def lines(prefix, ko, func):
    p = Profile(prefix)
    base = p.start_of(func)
    dis = subprocess.run(['objdump', '-d', '-l', '--no-show-raw-insn',
                          '--disassemble=' + func, ko],
                         capture_output=True, text=True, check=True).stdout
    per_line = collections.OrderedDict()
    start, src = None, '?'
    for line in dis.splitlines():
        m = re.match(r'^([0-9a-f]+) <(.*)>:', line)
        if m:
            start = int(m.group(1), 16)
            continue
        if line.startswith('/'):
            src = re.sub(r'^.*/(include|kernel)/', r'\1/', line.split()[0])
            continue
        m = re.match(r'^\s+([0-9a-f]+):', line)
        if m and start is not None:
            c = p.counts.get(base + int(m.group(1), 16) - start, 0)
            per_line[src] = per_line.get(src, 0) + c / p.packets
    print('# %s in %s: guest instructions per packet by source line'
          % (func, prefix))
    for src, v in per_line.items():
        if v >= 0.05:
            print('%7.1f  %s' % (v, src))
    print('%7.1f  total' % sum(per_line.values()))


def insns(prefix, ko, func):
    p = Profile(prefix)
    base = p.start_of(func)
    dis = subprocess.run(['objdump', '-d', '--no-show-raw-insn',
                          '--disassemble=' + func, ko],
                         capture_output=True, text=True, check=True).stdout
    start, total = None, 0.0
    print('# %s in %s: guest instructions per packet, one by one'
          % (func, prefix))
    for line in dis.splitlines():
        m = re.match(r'^([0-9a-f]+) <(.*)>:', line)
        if m:
            start = int(m.group(1), 16)
            continue
        m = re.match(r'^\s+([0-9a-f]+):\s*(.*)$', line)
        if m and start is not None:
            v = p.counts.get(base + int(m.group(1), 16) - start, 0) / p.packets
            total += v
            if v >= 0.05:
                print('%7.2f  %s  %s' % (v, m.group(1), m.group(2)))
    print('%7.1f  total' % total)


def main(argv):
    if len(argv) >= 3 and argv[1] == 'symbols':
        symbols(argv[2], *[int(x) for x in argv[3:4]])
    elif len(argv) >= 4 and argv[1] == 'diff':
        diff(argv[2], argv[3], *[int(x) for x in argv[4:5]])
    elif len(argv) == 5 and argv[1] == 'lines':
        lines(argv[2], argv[3], argv[4])
    elif len(argv) == 5 and argv[1] == 'insns':
        insns(argv[2], argv[3], argv[4])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
