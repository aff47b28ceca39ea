# A build of many short compiles, for the benchmarks: NFILES generated C files
# (tests/bench/gen-short.awk, deterministic) whose compiles at -O2 take about
# 50-300 ms each and grow as they go, a few of them longer and larger (as a
# project's biggest files), then an archive of them all and a link: the kind
# of C build whose peak is two compilers meeting at their tops for a moment.
# Every 25th object also goes through a step that takes SPIKE_MIB MiB in 40 ms,
# holds it SPIKE_HOLD_MS ms from when it got there (late or not, on a busy
# machine) and exits at its largest (the workload climb, standing for the
# short `ar` of ~54 MiB seen at the top of a busybox build, which holds its
# top while it writes the archive). The hold is what lets the bench's
# reference see that top: its sweeps of the tree take ~5 ms there, in
# which the spike climbs ~6 MiB, so a top held 0 ms reads up to 6% low in it
# (spacetime's own catching of 0 ms tops is tested against the workload's
# truth in tests/e2e/climb.bats). Offline: the sources are made here, from
# nothing but awk.
# make -f tests/bench/short.mk OUT=/tmp/x WL=build/workloads -j2
NFILES ?= 300
OUT ?= /tmp/spacetime-bench-short
GEN := tests/bench/gen-short.awk
WL ?= build/workloads
SPIKE_MIB ?= 50
SPIKE_HOLD_MS ?= 20
IDS := $(shell seq 1 $(NFILES))
SRCS := $(IDS:%=$(OUT)/src/f%.c)
OBJS := $(IDS:%=$(OUT)/obj/f%.o)
all: $(OUT)/prog
$(OUT)/src/f%.c: $(GEN)
	@mkdir -p $(@D)
	@awk -v id=$* -f $(GEN) >$@
$(OUT)/obj/f%.o: $(OUT)/src/f%.c
	@mkdir -p $(@D)
	@$(CC) -O2 -c -o $@ $<
	@if [ $$(($* % 25)) = 0 ]; then $(WL)/climb 1 $(SPIKE_MIB) 40 $(SPIKE_HOLD_MS); fi
$(OUT)/lib.a: $(OBJS)
	@rm -f $@
	@ar rcs $@ $(OBJS)
$(OUT)/main.c:
	@mkdir -p $(@D)
	@printf 'int f1(void *, int);\nint main(void) { return f1(0, 0) & 0; }\n' >$@
$(OUT)/prog: $(OUT)/main.c $(OUT)/lib.a
	@$(CC) -O2 -o $@ $^
# the sources alone, made before a measured build (their awk is not the build's)
sources: $(SRCS) $(OUT)/main.c
.PHONY: all sources
.SECONDARY:
