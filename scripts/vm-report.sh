# SPDX-License-Identifier: GPL-2.0
#
# The test VM's KTAP channel, sourced by its /init (vm-init), which runs
# as PID 1 under busybox sh.
#
# Why a writer process: PID 1 inherits every orphan a test leaves behind,
# and busybox sh catches SIGCHLD.  A tty write (n_tty_write) gives up
# with EINTR when a signal is pending, and a tty close stops waiting for
# the output to drain, so a result line that PID 1 writes to the serial
# port itself is lost whenever an orphan dies at that moment (seen in
# make check: "ok 21 vm/vcsw_flood" never reached the host).  One cat,
# a child that has no children and so never gets SIGCHLD, holds the port
# open for the whole run; PID 1 writes into a pipe to it, and writes
# from subshells, so no signal of PID 1's can cut a line.
#
# ktap_open DEVICE: start the writer; ktap_close: flush and stop it.

: "${KTAP_FIFO:=/tmp/ktap.fifo}"

ktap_open() {
	rm -f "$KTAP_FIFO"
	mkfifo "$KTAP_FIFO" || return 1
	# the redirection happens in the subshell, so PID 1 never owns the tty
	( exec cat "$KTAP_FIFO" > "$1" ) &
	KTAP_WRITER=$!
	# read-write: an open for writing alone would wait for cat, and a
	# signal could break that wait
	exec 7<> "$KTAP_FIFO"
}

# report LINE...: one KTAP line
report() {
	( printf '%s\n' "$*" ) >&7
}

# report_file FILE: FILE's lines as KTAP diagnostics ("# ...")
report_file() {
	sed 's/^/# /' "$1" >&7
}

ktap_close() {
	exec 7>&-
	# cat drains the port when it closes it, then exits
	wait "$KTAP_WRITER"
	rm -f "$KTAP_FIFO"
}
