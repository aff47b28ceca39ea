# gen-short.awk -v id=N: the C source of file N of the short-compile build
# (tests/bench/short.mk). Its size comes from N alone: most files make a
# compile of 50-300 ms, every 37th one of a second or more, larger. cc1 grows
# with the largest function at -O2, so each file has small functions and one
# long one whose length sets the compile's time and memory.
function rnd() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
BEGIN {
	seed = id * 7919 + 17
	n = 1 + int(rnd() * 3)          # the long function, in units
	if (id % 37 == 0)
		n = 8 + int(rnd() * 4)
	printf "struct st%d { int a[64]; double d[32]; };\n", id
	printf "extern void *memset(void *, int, unsigned long);\n"
	for (f = 0; f < n; f++) {
		printf "static int g%d(struct st%d *s, int x) {\n\tint r = x;\n", f, id
		for (k = 0; k < 12; k++)
			printf "\tr += s->a[(x + %d) & 63] * %d; s->d[%d] += r * %d.5;\n", int(rnd() * 64), int(rnd() * 97), int(rnd() * 32), int(rnd() * 9)
		printf "\tif (r & 1) memset(s->a, r, sizeof(s->a));\n\treturn r;\n}\n"
	}
	printf "int f%d(void *p, int x) {\n\tstruct st%d *s = p;\n\tint r = x;\n", id, id
	for (f = 0; f < n; f++)
		printf "\tr += g%d(s, r);\n", f
	for (k = 0; k < n * 50; k++)
		printf "\tif ((r ^ %d) & 3) r += s->a[(r + %d) & 63] * %d; else s->d[%d] -= r;\n", int(rnd() * 1000), int(rnd() * 64), int(rnd() * 97), int(rnd() * 32)
	printf "\treturn r;\n}\n"
}
