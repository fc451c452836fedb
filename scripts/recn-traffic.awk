# SPDX-License-Identifier: GPL-2.0
#
# Self-similar traffic for qsim recn (Documentation/recn.rst, "The paper's
# experiment"): every host sends on each of 8 SLs load/8 of its link's
# rate, in bursts to one uniform destination (not itself): 5000 bytes on
# the QoS SLs 0-3, 30000 on the best-effort SLs 4-7, as the paper.  A
# burst's frames are all offered when it starts; their sizes are Pareto
# (shape 1.1) bounded to 128..2048 bytes (many small frames and an
# occasional large one), the last cut to end the burst.  Bursts start at
# exponential gaps whose mean
# keeps the rate.  Prints "time_ns src dst len sl", unsorted.
#
# awk -v seed=N -v hosts=N -v load=0..1 -v bps=BYTES_PER_S -v dur=NS
#     [-v hi=BYTES]  (the largest frame, 2048; the VM's: what its MTU takes)
BEGIN {
	srand(seed)
	shape = 1.1; lo = 128
	if (!hi)
		hi = 2048
	c = 1 - (lo / hi) ^ shape
	for (h = 0; h < hosts; h++) {
		for (s = 0; s < 8; s++) {
			burst = s < 4 ? 5000 : 30000
			rate = load * bps / 8 / 1e9	# bytes per ns on this SL
			t = -log(1 - rand()) * burst / rate
			while (t < dur) {
				do d = int(rand() * hosts); while (d == h)
				for (b = 0; b < burst; b += len) {
					len = int(lo / (1 - rand() * c) ^ (1 / shape))
					# the last frame ends the burst (64 bytes at least)
					if (len > burst - b)
						len = burst - b < 64 ? 64 : burst - b
					# %.0f: mawk's %d stops at 2^31 - 1 (2.1 s of ns)
					printf "%.0f %d %d %d %d\n", int(t), h, d, len, s
				}
				t += -log(1 - rand()) * burst / rate
			}
		}
	}
}
