# SPDX-License-Identifier: GPL-2.0
#
# The congestion tree of Documentation/recn.rst for qsim recn --leaves 2
# --hosts 3 --spines 1: for 2 ms, hosts 1, 3 and 4 each send 2000-byte
# frames at 1 GB/s to host 5 (SL 4), and host 0 at half that to host 3
# (SL 5), across the spine link that carries host 1's frames.
BEGIN {
	for (t = 0; t < 2000000; t += 2000) {
		printf "%d 1 5 2000 4\n%d 3 5 2000 4\n%d 4 5 2000 4\n", t, t, t
		if (t % 4000 == 0)
			printf "%d 0 3 2000 5\n", t
	}
}
