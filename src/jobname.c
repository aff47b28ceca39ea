/* jobname.c: a process's job name from its argv, by one rule table. */
#include "jobname.h"

#include "textsafe.h"

#include <stdint.h>
#include <string.h>

/* How a program's distinctive part is found. */
enum jn_kind {
	JN_GENERIC,  /* file-like arguments */
	JN_COMPILER, /* the source compiled, else the output */
	JN_MAKE,     /* the directory, else the goals, else the makefile */
	JN_SHELL,    /* sh -c: the script's first real command; else the script */
	JN_INTERP,   /* the script run */
};

/* Option groups: which options take their value as the next argument. */
enum {
	JN_G_GCC = 1u << 0,  /* gcc, cc1, as, ld, collect2 and their kin */
	JN_G_CC1 = 1u << 1,  /* cc1 family only (-MD FILE, where the driver's -MD has none) */
	JN_G_RUST = 1u << 2,
	JN_G_JAVA = 1u << 3,
	JN_G_MAKE = 1u << 4,
	JN_G_INTERP = 1u << 5,
	JN_G_SHELL = 1u << 6,
};

/* A rule: a program name (with JN_VER, any trailing digits and dots too:
 * python3.11, perl5.36), how its job is named, and its option groups. */
#define JN_VER 1u
static const struct jn_rule {
	const char *name;
	enum jn_kind kind;
	unsigned groups;
	unsigned flags;
} jn_rules[] = {
	{"cc1", JN_COMPILER, JN_G_GCC | JN_G_CC1, 0},
	{"cc1plus", JN_COMPILER, JN_G_GCC | JN_G_CC1, 0},
	{"cc1obj", JN_COMPILER, JN_G_GCC | JN_G_CC1, 0},
	{"cc1objplus", JN_COMPILER, JN_G_GCC | JN_G_CC1, 0},
	{"f951", JN_COMPILER, JN_G_GCC | JN_G_CC1, 0},
	{"lto1", JN_COMPILER, JN_G_GCC | JN_G_CC1, 0},
	{"gcc", JN_COMPILER, JN_G_GCC, 0},
	{"g++", JN_COMPILER, JN_G_GCC, 0},
	{"cc", JN_COMPILER, JN_G_GCC, 0},
	{"c++", JN_COMPILER, JN_G_GCC, 0},
	{"cpp", JN_COMPILER, JN_G_GCC, 0},
	{"gfortran", JN_COMPILER, JN_G_GCC, 0},
	{"clang", JN_COMPILER, JN_G_GCC, 0},
	{"clang++", JN_COMPILER, JN_G_GCC, 0},
	{"tcc", JN_COMPILER, JN_G_GCC, 0},
	{"as", JN_COMPILER, JN_G_GCC, 0},
	{"nasm", JN_COMPILER, JN_G_GCC, 0},
	{"ld", JN_COMPILER, JN_G_GCC, 0},
	{"ld.bfd", JN_COMPILER, JN_G_GCC, 0},
	{"ld.gold", JN_COMPILER, JN_G_GCC, 0},
	{"ld.lld", JN_COMPILER, JN_G_GCC, 0},
	{"mold", JN_COMPILER, JN_G_GCC, 0},
	{"collect2", JN_COMPILER, JN_G_GCC, 0},
	{"lto-wrapper", JN_COMPILER, JN_G_GCC, 0},
	{"rustc", JN_COMPILER, JN_G_RUST, 0},
	{"javac", JN_COMPILER, JN_G_JAVA, 0},
	{"make", JN_MAKE, JN_G_MAKE, 0},
	{"gmake", JN_MAKE, JN_G_MAKE, 0},
	{"remake", JN_MAKE, JN_G_MAKE, 0},
	{"sh", JN_SHELL, JN_G_SHELL, 0},
	{"bash", JN_SHELL, JN_G_SHELL, 0},
	{"dash", JN_SHELL, JN_G_SHELL, 0},
	{"ash", JN_SHELL, JN_G_SHELL, 0},
	{"ksh", JN_SHELL, JN_G_SHELL, 0},
	{"mksh", JN_SHELL, JN_G_SHELL, 0},
	{"zsh", JN_SHELL, JN_G_SHELL, 0},
	{"python", JN_INTERP, JN_G_INTERP, JN_VER},
	{"perl", JN_INTERP, JN_G_INTERP, JN_VER},
	{"ruby", JN_INTERP, JN_G_INTERP, JN_VER},
	{"node", JN_INTERP, JN_G_INTERP, 0},
	{"nodejs", JN_INTERP, JN_G_INTERP, 0},
	{"tclsh", JN_INTERP, JN_G_INTERP, JN_VER},
	{"lua", JN_INTERP, JN_G_INTERP, JN_VER},
	{"php", JN_INTERP, JN_G_INTERP, JN_VER},
};

/* Options whose value is the next argument, by group. Joined forms (-Iinc,
 * --directory=dir) are one argument starting with '-' and need no entry. */
static const struct jn_opt {
	const char *opt;
	unsigned groups;
} jn_opts[] = {
	{"-o", JN_G_GCC | JN_G_RUST | JN_G_MAKE},
	{"-I", JN_G_GCC | JN_G_MAKE | JN_G_INTERP},
	{"-D", JN_G_GCC},
	{"-U", JN_G_GCC},
	{"-L", JN_G_GCC | JN_G_RUST},
	{"-l", JN_G_GCC},
	{"-x", JN_G_GCC},
	{"-T", JN_G_GCC},
	{"-m", JN_G_GCC}, /* ld -m elf_x86_64 (gcc's -m options are joined) */
	{"-z", JN_G_GCC},
	{"-e", JN_G_GCC},
	{"-u", JN_G_GCC},
	{"-MF", JN_G_GCC},
	{"-MT", JN_G_GCC},
	{"-MQ", JN_G_GCC},
	{"-MD", JN_G_CC1},
	{"-MMD", JN_G_CC1},
	{"-include", JN_G_GCC},
	{"-imacros", JN_G_GCC},
	{"-imultiarch", JN_G_GCC},
	{"-imultilib", JN_G_GCC},
	{"-isystem", JN_G_GCC},
	{"-iquote", JN_G_GCC},
	{"-idirafter", JN_G_GCC},
	{"-iprefix", JN_G_GCC},
	{"-iwithprefix", JN_G_GCC},
	{"-iwithprefixbefore", JN_G_GCC},
	{"-isysroot", JN_G_GCC},
	{"-dumpdir", JN_G_GCC},
	{"-dumpbase", JN_G_GCC},
	{"-dumpbase-ext", JN_G_GCC},
	{"-auxbase", JN_G_GCC},
	{"-auxbase-strip", JN_G_GCC},
	{"-aux-info", JN_G_GCC},
	{"-main-file-name", JN_G_GCC},
	{"--param", JN_G_GCC},
	{"-Xlinker", JN_G_GCC},
	{"-Xassembler", JN_G_GCC},
	{"-Xpreprocessor", JN_G_GCC},
	{"-Xclang", JN_G_GCC},
	{"-target", JN_G_GCC},
	{"-arch", JN_G_GCC},
	{"-plugin", JN_G_GCC},
	{"-dynamic-linker", JN_G_GCC},
	{"-soname", JN_G_GCC},
	{"-rpath", JN_G_GCC},
	{"-rpath-link", JN_G_GCC},
	{"-Map", JN_G_GCC},
	{"--crate-name", JN_G_RUST},
	{"--crate-type", JN_G_RUST},
	{"--edition", JN_G_RUST},
	{"-C", JN_G_RUST | JN_G_MAKE},
	{"--codegen", JN_G_RUST},
	{"--cfg", JN_G_RUST},
	{"--out-dir", JN_G_RUST},
	{"--extern", JN_G_RUST},
	{"--cap-lints", JN_G_RUST},
	{"--emit", JN_G_RUST},
	{"--error-format", JN_G_RUST},
	{"--json", JN_G_RUST},
	{"--target", JN_G_RUST},
	{"-A", JN_G_RUST},
	{"-W", JN_G_RUST | JN_G_MAKE | JN_G_INTERP},
	{"-d", JN_G_JAVA},
	{"-s", JN_G_JAVA},
	{"-h", JN_G_JAVA},
	{"-cp", JN_G_JAVA},
	{"-classpath", JN_G_JAVA},
	{"--class-path", JN_G_JAVA},
	{"-sourcepath", JN_G_JAVA},
	{"--source-path", JN_G_JAVA},
	{"-processorpath", JN_G_JAVA},
	{"--module-path", JN_G_JAVA},
	{"-encoding", JN_G_JAVA},
	{"-source", JN_G_JAVA},
	{"-target", JN_G_JAVA},
	{"--release", JN_G_JAVA},
	{"-f", JN_G_MAKE},
	{"--file", JN_G_MAKE},
	{"--makefile", JN_G_MAKE},
	{"--directory", JN_G_MAKE},
	{"--include-dir", JN_G_MAKE},
	{"--old-file", JN_G_MAKE},
	{"--assume-old", JN_G_MAKE},
	{"--what-if", JN_G_MAKE},
	{"--new-file", JN_G_MAKE},
	{"--assume-new", JN_G_MAKE},
	{"-X", JN_G_INTERP},
	{"-r", JN_G_INTERP},
	{"--require", JN_G_INTERP},
	{"--import", JN_G_INTERP},
	{"-o", JN_G_SHELL},
	{"+o", JN_G_SHELL},
	{"-O", JN_G_SHELL},
	{"+O", JN_G_SHELL},
	{"--rcfile", JN_G_SHELL},
	{"--init-file", JN_G_SHELL},
};

/* Extensions of source files a compiler takes as input. */
static const char *const jn_src_ext[] = {
	"c", "cc", "cp", "cpp", "cxx", "c++", "C", "CPP", "i", "ii", "m", "mm", "M", "S",
	"s", "sx", "asm", "f", "for", "f90", "f95", "F", "F90", "rs", "java", "go", "cu",
};

/* First words of a script's commands that set up rather than do the job:
 * `set -e; mkdir -p dir; echo '  CC foo.o'; gcc ...` is a gcc job. */
static const char *const jn_sh_skip[] = {
	"set", "cd", "mkdir", "echo", "printf", ":", "true", "false", "test", "[", "[[",
	"export", "umask", "trap", "rm", "unset", "shift", "local", "readonly", "exit",
	"wait", "sleep",
};

/* Words that lead into the command proper (`if gcc ...`, `exec ./x`), or
 * close a compound one (`done`): none of them is the job. */
static const char *const jn_sh_prefix[] = {
	"if", "then", "else", "elif", "do", "while", "until", "!", "{", "(", "exec",
	"command", "time", "nohup", "nice", "env", "done", "fi", "esac", "}",
};

#define JN_NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define JN_PATH_MAX 40    /* a longer path keeps its tail: ".../dir/file.c" */
#define JN_SCRIPT_MAX 4096 /* bytes of a sh -c script looked at */
#define JN_SCRIPT_WORDS 128
#define JN_DEPTH_MAX 3    /* sh -c "sh -c '...'" nesting followed */

static int jn_in(const char *s, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, set[i]))
			return 1;
	return 0;
}

static const char *jn_base(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash && slash[1] ? slash + 1 : s;
}

/* Whether name is the rule's program, allowing a version after it for JN_VER. */
static int jn_rule_match(const struct jn_rule *r, const char *name, size_t len)
{
	size_t n = strlen(r->name);

	if (len < n || memcmp(name, r->name, n))
		return 0;
	if (len == n)
		return 1;
	if (!(r->flags & JN_VER))
		return 0;
	for (size_t i = n; i < len; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || name[i] == '.'))
			return 0;
	return 1;
}

static const struct jn_rule *jn_rule_exact(const char *name, size_t len)
{
	for (size_t i = 0; i < JN_NELEM(jn_rules); i++)
		if (jn_rule_match(&jn_rules[i], name, len))
			return &jn_rules[i];
	return NULL;
}

/* The rule for a program's basename: as is, without a version suffix
 * (gcc-12, clang-16) and without a target prefix (x86_64-linux-gnu-gcc-12). */
static const struct jn_rule *jn_rule_find(const char *base)
{
	size_t len = strlen(base);
	const struct jn_rule *r;

	if (*base == '-') { /* a login shell: -bash */
		base++;
		len--;
	}
	if ((r = jn_rule_exact(base, len)))
		return r;
	const char *dash = memrchr(base, '-', len);
	if (dash && dash[1] >= '0' && dash[1] <= '9' && strspn(dash + 1, "0123456789.") == len - (size_t)(dash + 1 - base))
		len = (size_t)(dash - base);
	for (size_t i = 0; i < len; i++)
		if ((i == 0 || base[i - 1] == '-') && (r = jn_rule_exact(base + i, len - i)))
			return r;
	return NULL;
}

/* Whether opt takes the next argument as its value for these groups. */
static int jn_takes_value(const char *opt, unsigned groups)
{
	for (size_t i = 0; i < JN_NELEM(jn_opts); i++)
		if ((jn_opts[i].groups & groups) && !strcmp(opt, jn_opts[i].opt))
			return 1;
	return 0;
}

static int jn_is_source(const char *s)
{
	const char *b = jn_base(s), *dot = strrchr(b, '.');

	return dot && dot != b && jn_in(dot + 1, jn_src_ext, JN_NELEM(jn_src_ext));
}

/* A compiler's temporary file: gcc names them ccXXXXXX.s (mkstemps). */
static int jn_is_temp(const char *s)
{
	const char *b = jn_base(s);

	if (strncmp(b, "cc", 2) || strlen(b) < 10 || b[8] != '.')
		return 0;
	for (int i = 2; i < 8; i++)
		if (!((b[i] >= 'a' && b[i] <= 'z') || (b[i] >= 'A' && b[i] <= 'Z') || (b[i] >= '0' && b[i] <= '9')))
			return 0;
	return 1;
}

/* The name being written: capped, control characters as spaces, runs of
 * spaces as one; cut marks that something did not fit. */
struct jn_out {
	char *p;
	size_t cap, len; /* cap: bytes available before the NUL */
	int cut;
};

/* Writes one byte, runs of spaces as one. */
static void jn_putc(struct jn_out *o, unsigned char c)
{
	if (c == ' ' && (o->len == 0 || o->p[o->len - 1] == ' '))
		return;
	if (o->len >= o->cap) {
		o->cut = 1;
		return;
	}
	o->p[o->len++] = (char)c;
}

/* Writes s (n bytes at most, up to a NUL) character by character as textsafe
 * decodes it: a control (C0, DEL, C1 in UTF-8) as a space, anything else as
 * it is (bytes that are not UTF-8 too: whoever shows the name replaces them). */
static void jn_putn(struct jn_out *o, const char *s, size_t n)
{
	n = strnlen(s, n);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = textsafe_utf8((const unsigned char *)s + i, n - i, &cp);
		if (!k)
			k = n - i; /* cut by the end */
		if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			jn_putc(o, ' ');
		else
			for (size_t j = 0; j < k; j++)
				jn_putc(o, (unsigned char)s[i + j]);
		i += k;
	}
}

static void jn_puts(struct jn_out *o, const char *s)
{
	jn_putn(o, s, strlen(s));
}

/* Writes a word, a long path shortened to its last components. */
static void jn_word(struct jn_out *o, const char *s)
{
	size_t n = strlen(s);

	jn_putc(o, ' ');
	if (n > JN_PATH_MAX) {
		const char *t = strchr(s + n - (JN_PATH_MAX - 3), '/');
		if (t && t[1]) {
			jn_puts(o, "...");
			s = t;
		}
	}
	jn_puts(o, s);
}

static size_t jn_name(const char *const *argv, size_t argc, struct jn_out *o, int depth);

/* compilers, assemblers, linkers: the first source that is not a temporary,
 * else the output if not a temporary, else either. */
static void jn_compiler(const char *const *argv, size_t argc, const struct jn_rule *r, struct jn_out *o)
{
	const char *src = NULL, *tmp_src = NULL, *out = NULL, *other = NULL;

	for (size_t i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] == '-' && a[1]) {
			if (!strcmp(a, "-o") && i + 1 < argc)
				out = argv[i + 1];
			else if (!strncmp(a, "-o", 2) && !(r->groups & JN_G_JAVA) && a[2] != '-')
				out = a + 2; /* -ofoo.o */
			if (jn_takes_value(a, r->groups))
				i++;
			continue;
		}
		if (a[0] == '@' || !a[0])
			continue; /* a response file, or nothing */
		if (jn_is_source(a)) {
			if (!jn_is_temp(a) && !src)
				src = a;
			else if (!tmp_src)
				tmp_src = a;
		} else if (!other) {
			other = a;
		}
	}
	const char *pick = src                           ? src
			   : out && !jn_is_temp(out)     ? out
			   : tmp_src                     ? tmp_src
			   : out                         ? out
							 : other;
	if (pick)
		jn_word(o, pick);
}

/* make: -C dir (cumulative), kbuild's obj=dir or M=dir, else the goals,
 * else a makefile other than the default. */
static void jn_make(const char *const *argv, size_t argc, const struct jn_rule *r, struct jn_out *o)
{
	const char *obj = NULL, *mdir = NULL, *dir = NULL, *file = NULL;
	size_t ngoals = 0;

	for (size_t i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-C") || !strcmp(a, "--directory")) {
			if (i + 1 < argc)
				dir = argv[++i];
		} else if (!strncmp(a, "--directory=", 12)) {
			dir = a + 12;
		} else if (!strncmp(a, "-C", 2) && a[2]) {
			dir = a + 2;
		} else if (!strcmp(a, "-f") || !strcmp(a, "--file") || !strcmp(a, "--makefile")) {
			if (i + 1 < argc)
				file = argv[++i];
		} else if (!strcmp(a, "-j") || !strcmp(a, "-l") || !strcmp(a, "--jobs") ||
			   !strcmp(a, "--load-average")) {
			/* an optional value: a number when separate */
			if (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9')
				i++;
		} else if (a[0] == '-') {
			if (jn_takes_value(a, r->groups))
				i++;
		} else if (!strncmp(a, "obj=", 4)) {
			obj = a + 4;
		} else if (!strncmp(a, "M=", 2)) {
			mdir = a + 2;
		} else if (!strchr(a, '=') && a[0]) {
			ngoals++;
		}
	}
	const char *pick = obj && *obj ? obj : mdir && *mdir ? mdir : dir;
	if (pick) {
		jn_word(o, pick);
		return;
	}
	if (ngoals) {
		for (size_t i = 1; i < argc; i++) {
			const char *a = argv[i];
			if (a[0] == '-') {
				if ((!strcmp(a, "-j") || !strcmp(a, "-l") || !strcmp(a, "--jobs") ||
				     !strcmp(a, "--load-average")) && i + 1 < argc && argv[i + 1][0] >= '0' &&
				    argv[i + 1][0] <= '9')
					i++;
				else if (jn_takes_value(a, r->groups))
					i++;
			} else if (a[0] && !strchr(a, '=')) {
				jn_word(o, a);
			}
		}
		return;
	}
	if (file && strcmp(jn_base(file), "Makefile") && strcmp(jn_base(file), "makefile") &&
	    strcmp(jn_base(file), "GNUmakefile"))
		jn_word(o, file);
}

/* A redirection word: 1 with its target (2>/dev/null), 2 without (>),
 * 0 for none. */
static int jn_redir(const char *w)
{
	w += strspn(w, "0123456789");
	if (*w == '&' && w[1] == '>')
		w++;
	if (*w != '<' && *w != '>')
		return 0;
	w += strspn(w, "<>&|");
	return *w ? 1 : 2;
}

/* Splits the first real command of a script into words (quotes removed) in
 * buf; returns the word count, 0 if none. Commands end at ; & | and newlines;
 * a command whose first word is in jn_sh_skip is passed over (the last of
 * them serves when no other follows). */
static size_t jn_script(const char *s, char *buf, size_t cap, const char **w, size_t maxw)
{
	size_t k = 0, nw = 0, first = 0, firstn = 0, len = strnlen(s, JN_SCRIPT_MAX);
	int inword = 0, drop = 0;

	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? s[i] : '\0';
		int sep = c == '\0' || c == ';' || c == '&' || c == '|' || c == '\n';
		/* 2>&1, >|, &>file: redirections, not separators */
		if ((c == '&' || c == '|') && inword && k && (buf[k - 1] == '>' || buf[k - 1] == '<'))
			sep = 0;
		if (c == '&' && i + 1 < len && s[i + 1] == '>')
			sep = 0;
		if (sep || c == ' ' || c == '\t' || c == '(' || c == ')') {
			if (inword && k < cap) {
				buf[k++] = '\0';
				inword = 0;
				/* a redirection and its target are no words of the command */
				int r = jn_redir(w[nw - 1]);
				if (r || drop)
					nw--;
				drop = r == 2;
			}
			if (!sep)
				continue;
			/* a command ended: drop leading keywords, assignments, redirections */
			size_t b = first;
			while (b < nw && (jn_in(w[b], jn_sh_prefix, JN_NELEM(jn_sh_prefix)) ||
					  (strchr(w[b], '=') && w[b][0] != '=' && w[b][0] != '-')))
				b++;
			if (b < nw && strcmp(w[b], "for") && strcmp(w[b], "case")) {
				if (!jn_in(w[b], jn_sh_skip, JN_NELEM(jn_sh_skip))) {
					memmove(w, w + b, (nw - b) * sizeof(*w));
					return nw - b;
				}
				/* the last of these is kept in case nothing better follows */
				memmove(w, w + b, (nw - b) * sizeof(*w));
				firstn = nw - b;
				nw = firstn;
			} else {
				nw = first;
			}
			first = nw;
			continue;
		}
		if (!inword) {
			if (nw == maxw || k + 1 >= cap)
				break;
			w[nw++] = buf + k;
			inword = 1;
		}
		if (c == '\'') {
			while (++i < len && s[i] != '\'')
				if (k + 1 < cap)
					buf[k++] = s[i];
		} else if (c == '"') {
			while (++i < len && s[i] != '"') {
				if (s[i] == '\\' && i + 1 < len && strchr("\"\\$`", s[i + 1]))
					i++;
				if (k + 1 < cap)
					buf[k++] = s[i];
			}
		} else if (c == '\\' && i + 1 < len) {
			if (k + 1 < cap)
				buf[k++] = s[++i];
		} else if (k + 1 < cap) {
			buf[k++] = c;
		}
	}
	if (inword && k < cap)
		buf[k++] = '\0';
	return firstn;
}

/* sh -c SCRIPT: the script's first real command, named by its own rule;
 * sh FILE: the file. */
static void jn_shell(const char *const *argv, size_t argc, const struct jn_rule *r, struct jn_out *o, int depth)
{
	size_t i;
	int c = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-' && a[0] != '+')
			break;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[1] != '-' && strchr(a + 1, 'c'))
			c = 1;
		if (jn_takes_value(a, r->groups))
			i++;
	}
	if (i >= argc)
		return;
	if (!c || depth >= JN_DEPTH_MAX) {
		jn_word(o, argv[i]);
		return;
	}
	char buf[JN_SCRIPT_MAX + JN_SCRIPT_WORDS];
	const char *w[JN_SCRIPT_WORDS];
	size_t nw = jn_script(argv[i], buf, sizeof(buf), w, JN_SCRIPT_WORDS);
	if (!nw)
		return;
	jn_putc(o, ' ');
	jn_name(w, nw, o, depth + 1);
}

/* An interpreter: the script, or -m MODULE, or -c/-e for inline code. */
static void jn_interp(const char *const *argv, size_t argc, const struct jn_rule *r, struct jn_out *o)
{
	for (size_t i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-m") && i + 1 < argc) {
			jn_word(o, a);
			jn_word(o, argv[i + 1]);
			return;
		}
		if (!strcmp(a, "-c") || !strcmp(a, "-e") || !strcmp(a, "-E") || !strcmp(a, "--eval")) {
			jn_word(o, a);
			return;
		}
		if (!strcmp(a, "--")) {
			if (i + 1 < argc)
				jn_word(o, argv[i + 1]);
			return;
		}
		if (a[0] == '-' && a[1]) {
			if (jn_takes_value(a, r->groups))
				i++;
			continue;
		}
		jn_word(o, a);
		return;
	}
}

/* Looks like a file: has a '/' or a '.' that is not all of a number. */
static int jn_filelike(const char *a)
{
	if (strchr(a, '/'))
		return 1;
	return strchr(a, '.') && strspn(a, "0123456789.") != strlen(a);
}

/* Any other program: its file-like arguments, else its plain arguments. */
static void jn_generic(const char *const *argv, size_t argc, struct jn_out *o)
{
	size_t shown = 0;

	for (int pass = 0; pass < 2 && !shown; pass++)
		for (size_t i = 1; i < argc && shown < 3; i++) {
			const char *a = argv[i];
			if (a[0] == '-' || !a[0] || (pass == 0 && !jn_filelike(a)))
				continue;
			jn_word(o, a);
			shown++;
		}
}

/* Writes the program's basename and its distinctive part. */
static size_t jn_name(const char *const *argv, size_t argc, struct jn_out *o, int depth)
{
	const char *a0 = argv[0];
	const struct jn_rule *r;

	if (strchr(a0, ' ')) { /* a title the program wrote over its argv */
		jn_puts(o, a0);
		return o->len;
	}
	const char *base = jn_base(a0);
	jn_puts(o, base);
	r = jn_rule_find(base);
	switch (r ? r->kind : JN_GENERIC) {
	case JN_COMPILER: jn_compiler(argv, argc, r, o); break;
	case JN_MAKE: jn_make(argv, argc, r, o); break;
	case JN_SHELL: jn_shell(argv, argc, r, o, depth); break;
	case JN_INTERP: jn_interp(argv, argc, r, o); break;
	case JN_GENERIC: jn_generic(argv, argc, o); break;
	}
	return o->len;
}

size_t jobname_argv(const char *const *argv, size_t argc, const char *comm, char *out, size_t cap)
{
	struct jn_out o = {out, 0, 0, 0};

	if (cap == 0)
		return 0;
	o.cap = cap - 1 < JOBNAME_MAX ? cap - 1 : JOBNAME_MAX;
	if (argc > JOBNAME_MAX_ARGS)
		argc = JOBNAME_MAX_ARGS;
	if (argc && argv[0][0])
		jn_name(argv, argc, &o, 0);
	else if (comm)
		jn_putn(&o, comm, 16);
	if (o.cut && o.cap >= 4) {
		/* room for "...", without cutting a UTF-8 sequence */
		o.len = o.cap - 3;
		while (o.len && ((unsigned char)o.p[o.len] & 0xc0) == 0x80)
			o.len--;
		while (o.len && o.p[o.len - 1] == ' ')
			o.len--;
		memcpy(o.p + o.len, "...", 3);
		o.len += 3;
	}
	while (o.len && o.p[o.len - 1] == ' ')
		o.len--;
	out[o.len] = '\0';
	return o.len;
}

size_t jobname(const char *blob, size_t len, const char *comm, char *out, size_t cap)
{
	const char *argv[JOBNAME_MAX_ARGS];
	char last[256];
	size_t argc = 0, i = 0;

	while (blob && i < len && argc < JOBNAME_MAX_ARGS) {
		const char *nul = memchr(blob + i, '\0', len - i);
		if (!nul) {
			/* the last string has no NUL (the blob was cut): copy it */
			size_t n = len - i < sizeof(last) - 1 ? len - i : sizeof(last) - 1;
			memcpy(last, blob + i, n);
			last[n] = '\0';
			argv[argc++] = last;
			break;
		}
		argv[argc++] = blob + i;
		i = (size_t)(nul - blob) + 1;
	}
	return jobname_argv(argv, argc, comm, out, cap);
}
