# A real parallel C build for the benchmarks: compiles spacetime's own sources
# COPIES times into OUT (each copy is a separate object tree), offline; ui/main.c
# needs the version.h that the main build writes into B.
# make -f tests/bench/build.mk OUT=/tmp/x COPIES=4 -j2
COPIES ?= 4
OUT ?= /tmp/spacetime-bench-build
SRCS := $(wildcard src/*.c ui/*.c)
B ?= build
CFLAGS_B := -std=gnu11 -O2 -g -D_GNU_SOURCE -Isrc -I$(B) $(shell pkg-config --cflags ncursesw libmnl 2>/dev/null)
OBJS := $(foreach n,$(shell seq 1 $(COPIES)),$(SRCS:%.c=$(OUT)/$(n)/%.o))
all: $(OBJS)
define copy_rule
$(OUT)/$(1)/%.o: %.c
	@mkdir -p $$(@D)
	@$$(CC) $$(CFLAGS_B) -c -o $$@ $$<
endef
$(foreach n,$(shell seq 1 $(COPIES)),$(eval $(call copy_rule,$(n))))
