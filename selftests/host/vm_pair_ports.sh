#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# Two pairs of VMs booted at once (make check's two lanes, each with one
# kernel's "# vm: pair" VMs) must not share the UDP ports of their links
# (fq_vm_boot_pair, scripts/lib.sh).  The ports are chosen free, but a
# port is taken only when its qemu starts, the tester's seconds later: two
# pairs started together chose the same four ports and wired each other's
# VMs, and vm/pair_clocks@6.1 lost its ping in a clean-clone check.  Here
# the qemu is a script on PATH that holds, while it runs, a lock named by
# each local port it was given; a second qemu on a port in use says so.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/lib.sh"

fq_vm_abi > /dev/null 2>&1 || { echo "SKIP: no VM kernel prepared (make setup)"; exit 4; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
cat > "$work/bin/qemu-system-x86_64" <<EOF
#!/bin/bash
[ "\$1" = --version ] && { echo "QEMU emulator version 9.9.9"; exit 0; }
held=()
trap 'rmdir "\${held[@]}" 2>/dev/null; exit 0' TERM EXIT
for a in "\$@"; do
	case \$a in
	*localaddr=127.0.0.1:*)
		p=\${a##*localaddr=127.0.0.1:}
		if mkdir "$work/port-\$p" 2>/dev/null; then
			held+=("$work/port-\$p")
		else
			echo "port \$p" >> "$work/shared"
		fi ;;
	esac
done
while [ \$# -gt 0 ]; do [ "\$1" = -pidfile ] && echo \$\$ > "\$2"; shift; done
sleep 2 & wait \$!
EOF
chmod +x "$work/bin/qemu-system-x86_64"

for i in 1 2; do
	PATH=$work/bin:$PATH FQ_PAIR_DELAY_S=1 fq_vm_boot_pair /dev/null "$work/console-$i" \
		"$work/results-$i" 30 > "$work/out-$i" 2>&1 &
done
wait
if [ -s "$work/shared" ]; then
	echo "FAIL: two pairs booted at once shared ports: $(sort -u "$work/shared" | tr '\n' ' ')"
	exit 1
fi
ls "$work"/port-* > /dev/null 2>&1 && { echo "FAIL: a qemu left its port lock"; exit 1; }
echo "ok: two pairs booted at once, no port used twice at a time"
