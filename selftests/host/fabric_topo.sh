#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# fabric-topo, the topology builder, on what it writes (building needs
# the modules: vm/fabric_topo builds and destroys fabrics).  For trees of
# several shapes, the namespace script's veth pairs and the machines'
# cabling say the same wiring, every switch port is cabled once, and
# every host's default route to every other host, followed port by port
# through that wiring, ends at that host; options reach the commands;
# bad input is refused with a message and exit 2.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TOPO=$ROOT/build/bin/fabric-topo
[ -x "$TOPO" ] || { echo "FAIL: $TOPO not built"; exit 1; }
PY=$(command -v python3 || echo /usr/bin/python3)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Follows every route of the script through the wiring of the script and
# of the machines' comments.  Prints "ok HOSTS PAIRS" or the first fault.
cat > "$work/follow.py" <<'EOF'
import re, sys
k, n, script, machines = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
hosts = k ** n
wire = {}   # (ns, port) -> (ns, port); a host's end is (host ns, "eth0")
mac_of = {}
def cable(a, b):
    for x, y in ((a, b), (b, a)):
        if x in wire:
            sys.exit("cabled twice: %s" % (x,))
        wire[x] = y
for line in open(script):
    m = re.match(r"ip link add eth0 netns (\S+) address (\S+) type veth peer name p(\d+) netns (\S+)$", line)
    if m:
        mac_of[m.group(2)] = m.group(1)
        cable((m.group(1), "eth0"), (m.group(4), int(m.group(3))))
        continue
    m = re.match(r"ip link add p(\d+) netns (\S+) type veth peer name p(\d+) netns (\S+)$", line)
    if m:
        cable((m.group(2), int(m.group(1))), (m.group(4), int(m.group(3))))
switches = {ns for ns, p in wire if p != "eth0" and "-s" in ns}
if len(switches) != n * k ** (n - 1):
    sys.exit("%d switches cabled, want %d" % (len(switches), n * k ** (n - 1)))
for s in switches:
    top = s.split("-s")[1].startswith("%d." % (n - 1))
    want = set(range(k if top else 2 * k))
    got = {p for ns, p in wire if ns == s}
    if got != want:
        sys.exit("%s cabled on ports %s, want %s" % (s, sorted(got), sorted(want)))
if len(mac_of) != hosts:
    sys.exit("%d hosts, want %d" % (len(mac_of), hosts))
# the machines say the same
mach, cur = {}, None
for line in open(machines):
    m = re.match(r"### machine (\S+): a switch", line)
    if m:
        cur = m.group(1)
        continue
    m = re.match(r"#   P(\d+): to host (\d+) \((\S+)\)$", line)
    if m:
        mach[(cur, int(m.group(1)))] = (m.group(3), "eth0")
        continue
    m = re.match(r"#   P(\d+): to (\S+) port (\d+)$", line)
    if m:
        mach[(cur, int(m.group(1)))] = (m.group(2), int(m.group(3)))
sw_wire = {a: b for a, b in wire.items() if a[1] != "eth0"}
if mach != sw_wire:
    diff = set(mach.items()) ^ set(sw_wire.items())
    sys.exit("machines' cabling differs from the script's: %s" % sorted(diff, key=str)[:4])
# every route, hop by hop
pairs, host = 0, None
for line in open(script):
    m = re.match(r"ip netns exec (\S+) fabric-route -b - <<EOF$", line)
    if m:
        host = m.group(1)
        continue
    m = re.match(r"replace dev eth0 to (\S+) ports ([\d,]+)$", line)
    if not m:
        continue
    at = wire[(host, "eth0")]
    for p in [int(x) for x in m.group(2).split(",")]:
        if p == at[1]:
            sys.exit("%s -> %s: leaves %s by the port it came in" % (host, m.group(1), at[0]))
        at = wire.get((at[0], p))
        if at is None:
            sys.exit("%s -> %s: port %d not cabled" % (host, m.group(1), p))
    if at != (mac_of[m.group(1)], "eth0"):
        sys.exit("%s -> %s: ends at %s" % (host, m.group(1), at))
    pairs += 1
if pairs != hosts * (hosts - 1):
    sys.exit("%d routes, want %d" % (pairs, hosts * (hosts - 1)))
print("ok", hosts, pairs)
EOF

for tree in 2,1 2,2 4,2 2,3 3,3 8,2; do
	"$TOPO" --tree $tree script > "$work/script" || fail "script $tree"
	"$TOPO" --tree $tree machines > "$work/machines" || fail "machines $tree"
	out=$("$PY" "$work/follow.py" ${tree/,/ } "$work/script" "$work/machines" 2>&1)
	[[ $out == "ok "* ]] || fail "tree $tree: $out"
	# every command is one the script may run
	bad=$(grep -v -E '^(#|set -e$|ip |tc |EOF$|link (add|set) |neigh replace |replace dev |ip netns exec |$)' "$work/script" | head -3)
	[ -z "$bad" ] || fail "tree $tree: unexpected lines: $bad"
	# a machine's script stops before it does anything if a NIC is not named
	awk '/^### machine .*-s0\.0\.0:/ { on = 1; next } /^### / { on = 0 } on' "$work/machines" > "$work/m1"
	( unset P0 P1 P2 P3; sh -c "$(sed -n '/^set -e/,/^: .*P0/p' "$work/m1")" ) 2> "$work/err" &&
		fail "tree $tree: a switch machine's script went on without its NICs"
	grep -q "P0: the NIC to host 0" "$work/err" || fail "tree $tree: no message for P0: $(cat "$work/err")"
done

# options reach the commands
"$TOPO" --tree 2,2 --name fab_1 --link 100mbit --arch simple --buffer 16k \
	--in-buffer 12k --mac 02:00:00:57:10:00 --net 10.77 script > "$work/s" || fail "options"
# a switch's commands: one ip -batch in its namespace
batch() { sed -n "/^ip -n $1 -batch - <<EOF\$/,/^EOF\$/p" "$work/s"; }
batch fab_1-s0.0.0 | grep -q '^link add sw0 type vcsw arch simple rate 100000000bit buffer 16384 flood off$' ||
	fail "switch options: $(grep 'type vcsw ' "$work/s" | head -1)"
batch fab_1-s1.0.1 | grep -q '^link set p1 type vcsw_slave credits on in_buffer 12288$' ||
	fail "port options"
grep -q '^tc -n fab_1-h3 qdisc replace dev eth0 root handle 1: edf ttd on rate 100000000bit credits on$' "$work/s" ||
	fail "host qdisc: $(grep ' qdisc ' "$work/s" | head -1)"
grep -q '^ip link add eth0 netns fab_1-h3 address 02:00:00:57:10:03 ' "$work/s" || fail "host MAC"
grep -q '^ip -n fab_1-h3 addr add 10.77.0.4/16 dev eth0$' "$work/s" || fail "host address"
grep -q '^neigh replace 10.77.0.1 lladdr 02:00:00:57:10:00 dev eth0 nud permanent$' "$work/s" || fail "neighbour"
"$TOPO" --tree 2,2 --credits off script > "$work/s" || fail "credits off"
grep -q 'credits' "$work/s" && fail "credits off still names credits"
[ "$(grep -c '^ip netns add ' "$work/s")" = 8 ] || fail "2,2: 8 namespaces"
# four VCs: every switch and every host's edf; two: neither says vcs
"$TOPO" --tree 2,2 --name fab_2 --vcs 4 script > "$work/s" || fail "vcs 4"
[ "$(grep -c '^link add sw0 type vcsw arch advanced vcs 4 flood off$' "$work/s")" = 4 ] ||
	fail "vcs 4: switches: $(grep 'type vcsw ' "$work/s" | head -1)"
[ "$(grep -c '^tc -n fab_2-h[0-3] qdisc replace dev eth0 root handle 1: edf ttd on credits on vcs 4$' "$work/s")" = 4 ] ||
	fail "vcs 4: hosts: $(grep ' qdisc ' "$work/s" | head -1)"
"$TOPO" --tree 2,2 script | grep -q ' vcs ' && fail "vcs 2 named in the script"
# arch recn: every port and host runs RECN, its times from the link's
# (a 1514-byte frame at 2 Mbit/s: 6056 us; leases 4, idle 20 of them)
"$TOPO" --tree 2,2 --name fab_3 --link 2mbit --arch recn script > "$work/s" || fail "arch recn"
[ "$(grep -c '^link add sw0 type vcsw arch recn rate 2000000bit recn_refresh 6056us recn_lease 24224us recn_idle 121120us flood off$' "$work/s")" = 4 ] ||
	fail "recn: switches: $(grep 'type vcsw ' "$work/s" | head -1)"
[ "$(grep -c '^link set p[0-3] type vcsw_slave recn on$' "$work/s")" = 12 ] ||
	fail "recn: not on every port ($(grep -c 'recn on$' "$work/s") lines)"
[ "$(grep -c '^tc -n fab_3-h[0-3] qdisc replace dev eth0 root handle 1: edf ttd on rate 2000000bit credits on recn on recn_lease 24224us recn_idle 121120us$' "$work/s")" = 4 ] ||
	fail "recn: hosts: $(grep ' qdisc ' "$work/s" | head -1)"
# a fast link: the hosts' idle time no shorter than edf takes (1 ms)
"$TOPO" --tree 2,2 --link 10gbit --arch recn script | grep -q ' edf .* recn on recn_lease 4us recn_idle 1000us$' ||
	fail "recn at 10 Gbit/s: $("$TOPO" --tree 2,2 --link 10gbit --arch recn script | grep ' qdisc ' | head -1)"
# no link rate: vcsw's and edf's own defaults
"$TOPO" --tree 2,2 --arch recn script > "$work/s" || fail "arch recn without --link"
grep -q 'recn_' "$work/s" && fail "recn without --link names times: $(grep -m1 recn_ "$work/s")"
grep -q ' edf ttd on credits on recn on$' "$work/s" || fail "recn without --link: host"
"$TOPO" --tree 2,2 --arch advanced script | grep -q recn && fail "advanced names recn"
# the slowest link vcsw's 32-bit times take: 20 frames of 1514 bytes < 2^32 ns
"$TOPO" --tree 2,2 --arch recn --link 57k script | grep -q 'recn_idle 4249824us' ||
	fail "recn at 57 kbit/s: $("$TOPO" --tree 2,2 --arch recn --link 57k script 2>&1 | grep -m1 'recn_idle\|fabric-topo')"

# bad input: exit 2, a message, nothing written to stdout
for args in "" "--tree 1,2 script" "--tree 2,0 script" "--tree 2,4 script" "--tree 2 script" \
	    "--tree 2,2x script" "--tree 33,1 script" "--tree 4,5 machines" "--tree 16,3 script" \
	    "--tree 2,2" "--tree 2,2 build extra" "--tree 2,2 up" \
	    "--tree 2,2 --name a/b script" "--tree 2,2 --name -ab script" "--tree 2,2 --name abcdefghijklmnopqrstuvwxyz0123456 script" "--tree 2,2 --name '' script" \
	    "--tree 2,2 --link 0 script" "--tree 2,2 --link 5x script" "--tree 2,2 --arch fifo script" \
	    "--tree 2,2 --credits yes script" "--tree 2,2 --buffer 1k script" "--tree 2,2 --buffer 65m script" \
	    "--tree 2,2 --in-buffer 8k --credits off script" "--tree 2,2 --mac 03:00:00:00:00:00 script" \
	    "--tree 2,2 --mac 02:00:00:ff:ff:fe script" "--tree 2,2 --net 127.0 script" \
	    "--tree 2,2 --net 10.256 script" "--tree 2,2 --net 10 script" "--tree 2,2 --bogus script" \
	    "--tree 2,2 --vcs 1 script" "--tree 2,2 --vcs 5 script" "--tree 2,2 --vcs 4x script" \
	    "--tree 2,2 --arch recn --credits off script" "--tree 2,2 --arch recn --vcs 4 script" \
	    "--tree 2,2 --arch recn --link 56k script"; do
	eval "\"$TOPO\" $args" > "$work/out" 2> "$work/err"
	rc=$?
	[ $rc = 2 ] || fail "exit $rc for: $args"
	[ -s "$work/err" ] || fail "no message for: $args"
	[ -s "$work/out" ] && fail "output for: $args"
done

[ $fails = 0 ] || exit 1
echo "ok: fabric-topo wires and routes every tree right, passes its options, refuses bad input"
