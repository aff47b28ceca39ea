/* Unit tests for jobname: real command lines captured from builds
 * (tests/fixtures/jobname/argv.txt), then the rules one by one on
 * handwritten ones, and the bounds (length, control characters, UTF-8). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "jobname.h"

#define SEP " \xc2\xa6 " /* " ¦ " between arguments in the fixture */

/* The job name of an argv given as a list of strings ending with NULL. */
static const char *name_of(const char *a0, ...)
{
	static char out[JOBNAME_MAX + 1];
	const char *argv[64];
	size_t argc = 0;
	va_list ap;

	va_start(ap, a0);
	for (const char *a = a0; a && argc < 64; a = va_arg(ap, const char *))
		argv[argc++] = a;
	va_end(ap);
	jobname_argv(argv, argc, "comm", out, sizeof(out));
	return out;
}

/* Every captured line: the expected name, then argv split on SEP. */
static void test_captured(void **state)
{
	(void)state;
	size_t len, checked = 0, cc1 = 0, as = 0, make = 0, sh = 0;
	char *text = fixture_load("jobname/argv.txt", &len);
	char *buf = malloc(len + 1);

	assert_non_null(buf);
	memcpy(buf, text, len);
	buf[len] = '\0';
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		char *tab = strchr(line, '\t');
		assert_non_null(tab);
		*tab = '\0';
		const char *want = line, *argv[512];
		size_t argc = 0;
		for (char *p = tab + 1;;) {
			assert_true(argc < 512);
			argv[argc++] = p;
			char *d = strstr(p, SEP);
			if (!d)
				break;
			*d = '\0';
			p = d + strlen(SEP);
		}
		char out[JOBNAME_MAX + 1];
		jobname_argv(argv, argc, NULL, out, sizeof(out));
		if (strcmp(out, want))
			fail_msg("argv starting '%s' (%zu args): got '%s', want '%s'", argv[0], argc, out, want);
		checked++;
		cc1 += !strncmp(want, "cc1 ", 4);
		as += !strncmp(want, "as ", 3);
		make += !strncmp(want, "make ", 5);
		sh += !strncmp(want, "sh ", 3);
	}
	/* the fixture holds what it says it holds */
	assert_true(checked >= 40);
	assert_true(cc1 >= 8 && as >= 8 && make >= 4 && sh >= 4);
	free(buf);
	free(text);
}

/* The blob form (as the store keeps argv) gives what the array form gives. */
static void test_blob(void **state)
{
	(void)state;
	static const char blob[] = "/usr/lib/gcc/x86_64-linux-gnu/12/cc1\0-quiet\0-I\0include\0-I\0libbb\0"
				   "-imultiarch\0x86_64-linux-gnu\0-D\0BB_VER=\"1.36.1\"\0coreutils/cut.c\0"
				   "-quiet\0-dumpdir\0coreutils/\0-dumpbase\0cut.c\0-o\0/tmp/ccXYZabc.s";
	char out[JOBNAME_MAX + 1];

	/* with and without the last NUL */
	jobname(blob, sizeof(blob), NULL, out, sizeof(out));
	assert_string_equal(out, "cc1 coreutils/cut.c");
	jobname(blob, sizeof(blob) - 1, NULL, out, sizeof(out));
	assert_string_equal(out, "cc1 coreutils/cut.c");
	/* cut inside the last argument: what is there still counts */
	jobname(blob, sizeof(blob) - 4, NULL, out, sizeof(out));
	assert_string_equal(out, "cc1 coreutils/cut.c");
	/* no argv: the kernel's name */
	jobname(NULL, 0, "kworker", out, sizeof(out));
	assert_string_equal(out, "kworker");
	jobname("", 1, "cc1", out, sizeof(out));
	assert_string_equal(out, "cc1");
	jobname(NULL, 0, NULL, out, sizeof(out));
	assert_string_equal(out, "");
}

static void test_compilers(void **state)
{
	(void)state;
	/* versioned and target-prefixed drivers */
	assert_string_equal(name_of("x86_64-linux-gnu-gcc-12", "-O2", "-c", "foo.c", NULL), "x86_64-linux-gnu-gcc-12 foo.c");
	assert_string_equal(name_of("/usr/bin/gcc-12", "-c", "-o", "x.o", "x.cpp", NULL), "gcc-12 x.cpp");
	assert_string_equal(name_of("clang++-16", "-MD", "-MF", "a.d", "-c", "a.cc", NULL), "clang++-16 a.cc");
	assert_string_equal(name_of("aarch64-linux-gnu-g++", "-include", "pch.h", "-c", "m.cxx", NULL),
			    "aarch64-linux-gnu-g++ m.cxx");
	/* cc1plus: -MD takes a file there; -D, -isystem their values */
	assert_string_equal(name_of("cc1plus", "-quiet", "-MD", "obj/a.d", "-D", "X=b.c", "-isystem", "sys.c",
			       "src/a.cpp", "-o", "/tmp/ccAbC123.s", NULL),
			    "cc1plus src/a.cpp");
	/* a driver linking: no source, the output */
	assert_string_equal(name_of("cc", "-o", "spacetime", "a.o", "b.o", "-lm", NULL), "cc spacetime");
	/* joined output */
	assert_string_equal(name_of("gcc", "-c", "-obuild/x.o", "-x", "c", "-", NULL), "gcc build/x.o");
	/* as: the object, not the temporary input; a real .s input wins */
	assert_string_equal(name_of("as", "--64", "-o", "foo.o", "/tmp/ccQ1w2E3.s", NULL), "as foo.o");
	assert_string_equal(name_of("as", "--64", "-o", "start.o", "arch/x86/start.S", NULL), "as arch/x86/start.S");
	/* both temporaries: the source */
	assert_string_equal(name_of("as", "-o", "/tmp/ccAAAAAA.o", "/tmp/ccBBBBBB.s", NULL), "as /tmp/ccBBBBBB.s");
	/* linkers */
	assert_string_equal(name_of("/usr/bin/ld", "-plugin", "/usr/lib/gcc/x86_64-linux-gnu/12/liblto_plugin.so",
			       "-m", "elf_x86_64", "-dynamic-linker", "/lib64/ld-linux-x86-64.so.2", "-o",
			       "spacetime", "/usr/lib/x86_64-linux-gnu/crt1.o", "a.o", NULL),
			    "ld spacetime");
	assert_string_equal(name_of("collect2", "-plugin", "lto.so", "-o", "prog", "x.o", NULL), "collect2 prog");
	assert_string_equal(name_of("ld.gold", "-o", "libx.so", "x.o", NULL), "ld.gold libx.so");
	assert_string_equal(name_of("lto1", "-quiet", "-dumpbase", "prog.wpa", "-o", "/tmp/ccltotmp.s", NULL),
			    "lto1 /tmp/ccltotmp.s");
	/* rustc, javac */
	assert_string_equal(name_of("rustc", "--crate-name", "serde", "--edition", "2021", "src/lib.rs", "--crate-type",
			       "lib", "-C", "opt-level=3", "--out-dir", "target/deps", NULL),
			    "rustc src/lib.rs");
	assert_string_equal(name_of("javac", "-d", "out", "-cp", "lib/a.jar", "src/Main.java", NULL),
			    "javac src/Main.java");
	/* a long path keeps its tail */
	assert_string_equal(name_of("cc1", "/home/someone/src/linux/drivers/net/ethernet/intel/e1000e/netdev.c", NULL),
			    "cc1 .../net/ethernet/intel/e1000e/netdev.c");
}

static void test_make(void **state)
{
	(void)state;
	assert_string_equal(name_of("make", "-f", "./scripts/Makefile.build", "obj=drivers/net", "need-builtin=1", NULL),
			    "make drivers/net");
	assert_string_equal(name_of("/usr/bin/make", "-C", "sub", "-j2", NULL), "make sub");
	assert_string_equal(name_of("make", "--directory=lib", "all", NULL), "make lib");
	assert_string_equal(name_of("make", "-Cdoc", NULL), "make doc");
	assert_string_equal(name_of("make", "-C", "/lib/modules/6.1/build", "M=/home/u/mod", "modules", NULL),
			    "make /home/u/mod");
	/* goals: not the values of -j N, -f FILE, nor assignments */
	assert_string_equal(name_of("make", "-j", "4", "-f", "x.mk", "V=1", "all", "install", NULL), "make all install");
	assert_string_equal(name_of("gmake", "check", NULL), "gmake check");
	/* no goal: a makefile other than the default, else the plain name */
	assert_string_equal(name_of("make", "-f", "tests/bench/build.mk", "OUT=/tmp/jb", NULL), "make tests/bench/build.mk");
	assert_string_equal(name_of("make", "-f", "Makefile", "-j2", NULL), "make");
	assert_string_equal(name_of("make", NULL), "make");
}

static void test_shell(void **state)
{
	(void)state;
	/* kbuild's quiet recipes: set -e, the echoed line, then the job */
	assert_string_equal(name_of("/bin/sh", "-c", "set -e; echo '  CC      drivers/net/e1000.o'; gcc -Wp,-MMD -c -o "
					       "drivers/net/e1000.o drivers/net/e1000.c",
			       NULL),
			    "sh gcc drivers/net/e1000.c");
	assert_string_equal(name_of("bash", "-ec", "cd sub && make -j2 all", NULL), "bash make all");
	assert_string_equal(name_of("sh", "-c", "FOO=1 exec ./run.sh --fast >log 2>&1", NULL), "sh run.sh");
	assert_string_equal(name_of("sh", "-c", "pkg-config --cflags ncursesw 2>/dev/null", NULL), "sh pkg-config ncursesw");
	assert_string_equal(name_of("dash", "-c", "if gcc -c \"a b.c\"; then :; fi", NULL), "dash gcc a b.c");
	/* tabs and newlines in the script are blanks */
	assert_string_equal(name_of("sh", "-c", "\n\tset -e\n\tcc1 -quiet\tx.c\n", NULL), "sh cc1 x.c");
	/* loops: the command inside, not the keywords closing it */
	assert_string_equal(name_of("sh", "-c", "trap \"\" TERM; echo stubborn; while :; do cc -c x.c; done", NULL),
			    "sh cc x.c");
	assert_string_equal(name_of("sh", "-c", "for f in a b; do sleep 0.2; done", NULL), "sh sleep 0.2");
	/* only set-up commands: the last of them */
	assert_string_equal(name_of("sh", "-c", "set -e; echo hi", NULL), "sh echo hi");
	/* nested sh -c */
	assert_string_equal(name_of("sh", "-c", "sh -c 'make -C lib'", NULL), "sh sh make lib");
	/* a script file, and nothing */
	assert_string_equal(name_of("bash", "./configure", "--prefix=/usr", NULL), "bash ./configure");
	assert_string_equal(name_of("-bash", NULL), "-bash");
	assert_string_equal(name_of("sh", "-c", "", NULL), "sh");
}

static void test_interpreters(void **state)
{
	(void)state;
	assert_string_equal(name_of("/usr/bin/python3", "-u", "scripts/gen.py", "--out", "x", NULL), "python3 scripts/gen.py");
	assert_string_equal(name_of("python3.11", "-W", "ignore", "-m", "pytest", "-q", NULL), "python3.11 -m pytest");
	assert_string_equal(name_of("perl", "-I", "lib", "tools/mkdef.pl", NULL), "perl tools/mkdef.pl");
	assert_string_equal(name_of("perl5.36", "-e", "print 1", NULL), "perl5.36 -e");
	assert_string_equal(name_of("node", "--require", "ts-node/register", "build.js", NULL), "node build.js");
	assert_string_equal(name_of("ruby", NULL), "ruby");
}

static void test_generic(void **state)
{
	(void)state;
	assert_string_equal(name_of("mkdir", "-p", "/tmp/kb-out/lib/", NULL), "mkdir /tmp/kb-out/lib/");
	assert_string_equal(name_of("/usr/bin/pkg-config", "--cflags", "ncursesw", "libmnl", NULL), "pkg-config ncursesw libmnl");
	/* file-like arguments first, at most three */
	assert_string_equal(name_of("cp", "-a", "x", "a/b", "c.txt", "d/e", "f/g", NULL), "cp a/b c.txt d/e");
	assert_string_equal(name_of("seq", "1", "1.5", NULL), "seq 1 1.5");
	/* a title written over argv is shown as is */
	assert_string_equal(name_of("sshd: alice@pts/0", "", NULL), "sshd: alice@pts/0");
	/* gccgo is no gcc: its file-like arguments */
	assert_string_equal(name_of("gccgo", "-c", "x.go", "-o", "x.o", NULL), "gccgo x.go x.o");
}

/* Bounds: at most JOBNAME_MAX bytes, no control character, no cut UTF-8. */
static void test_bounds(void **state)
{
	(void)state;
	char longarg[300], out[JOBNAME_MAX + 1];
	memset(longarg, 'a', sizeof(longarg) - 1);
	longarg[sizeof(longarg) - 1] = '\0';
	const char *argv[] = {"tool", longarg};

	size_t n = jobname_argv(argv, 2, NULL, out, sizeof(out));
	assert_int_equal(n, JOBNAME_MAX);
	assert_int_equal(strlen(out), JOBNAME_MAX);
	assert_memory_equal(out + JOBNAME_MAX - 3, "...", 3);
	/* a small buffer */
	char small[8];
	assert_int_equal(jobname_argv(argv, 2, NULL, small, sizeof(small)), 7);
	assert_string_equal(small, "tool...");
	assert_int_equal(jobname_argv(argv, 2, NULL, small, 1), 0);
	assert_string_equal(small, "");
	/* controls: C0, DEL and C1 become blanks, runs of blanks one */
	const char *ctl[] = {"tool", "a\x01\x1b[31mb\x7f.c", "x\xc2\x9b" "1m/y"};
	jobname_argv(ctl, 3, NULL, out, sizeof(out));
	assert_string_equal(out, "tool a [31mb .c x 1m/y");
	for (size_t i = 0; out[i]; i++)
		assert_true((unsigned char)out[i] >= 0x20 && out[i] != 0x7f);
	/* a multi-byte character at the cut is dropped whole */
	char wide[200] = "";
	for (int i = 0; i < 40; i++)
		strcat(wide, "\xc3\xa9"); /* é */
	const char *w[] = {"tool", wide};
	n = jobname_argv(w, 2, NULL, out, sizeof(out));
	assert_true(n <= JOBNAME_MAX);
	assert_memory_equal(out + n - 3, "...", 3);
	for (size_t i = 5; i + 3 < n; i += 2)
		assert_memory_equal(out + i, "\xc3\xa9", 2);
	/* invalid UTF-8 is left for the display to mark */
	const char *bad[] = {"tool", "a\xff.c"};
	jobname_argv(bad, 2, NULL, out, sizeof(out));
	assert_string_equal(out, "tool a\xff.c");
	/* a comm with a control character */
	jobname_argv(NULL, 0, "ab\ncd", out, sizeof(out));
	assert_string_equal(out, "ab cd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captured),  cmocka_unit_test(test_blob),
		cmocka_unit_test(test_compilers), cmocka_unit_test(test_make),
		cmocka_unit_test(test_shell),     cmocka_unit_test(test_interpreters),
		cmocka_unit_test(test_generic),   cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
