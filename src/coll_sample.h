/* coll_sample: the collector's job that adds the tree's processes, notes
 * their execs (reading what must be read while the program runs), samples
 * their cheap counters and retires them; its state, and its part of the
 * collector's API (collector_int.h holds the shared state). */
#ifndef SPACETIME_COLL_SAMPLE_H
#define SPACETIME_COLL_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nlproc.h"
#include "procfs.h"
#include "ptable.h"

#define COLLECTOR_ARGV_MAX (64 * 1024)
#define COLLECTOR_PREFETCH 64 /* execs read ahead of their handling */

struct collector;

struct coll_sample {
	uint64_t next_id;
	uint64_t argv_vm_reads; /* command lines read from the process's memory */
	int argv_vm_refused;    /* reading it was refused (EPERM): not tried again */
	struct coll_prefetch {  /* what execs read ahead needed read while they ran */
		pid_t pid;
		uint64_t ts_ns;        /* its exec event's */
		uint64_t at_ns;        /* when it was read */
		struct procfs_stat ps; /* its stat then */
		uint32_t argv_id;      /* its command line (0: gone) */
		int fd;                /* its stat, open, or -1 */
	} pre[COLLECTOR_PREFETCH];
	size_t npre;
	uint64_t prefetch_used; /* execs handled with what was read ahead */
	char argv[COLLECTOR_ARGV_MAX];
};

/* As coll_sample_retire's last: stat is read there. */
extern const struct procfs_stat coll_sample_retire_read;
#define COLL_SAMPLE_RETIRE_READ (&coll_sample_retire_read)
uint32_t coll_sample_read_argv(struct collector *c, pid_t pid);
int coll_sample_prefetch_exec(struct collector *c, const struct nlproc_event *ev);
void coll_sample_prefetch_expire(struct collector *c, uint64_t now, int all);
uint32_t coll_sample_root_argv(struct collector *c);
void coll_sample_note_exec(struct collector *c, struct pentry *e, uint64_t t_ns);
struct pentry *coll_sample_add_proc(struct collector *c, pid_t pid, pid_t ppid, uint64_t t_ns,
					   const struct pentry *parent);
void coll_sample_retire(struct collector *c, struct pentry *e, uint64_t t_ns, int status, int known,
			const struct procfs_stat *last);
int coll_sample_retired_exec(struct collector *c, pid_t pid, uint64_t t_ns);
int coll_sample_cheap(struct collector *c, struct pentry *e, uint64_t now);
int coll_sample_proc_ended(struct collector *c, struct pentry *e, struct procfs_stat *ps, int *read);
void coll_sample_retire_exited(struct collector *c);

/* coll_tsrec.c: below sample, above the model */
/* Adds one task's exit record to its process's entry. */
void coll_tsrec_add(struct collector *c, struct pentry *e, const struct taskstats_exit *x);
/* Whether record x (received at read_ns, the socket found empty at
 * after_ns) is of a task of e. */
int coll_tsrec_fits(struct collector *c, const struct pentry *e, const struct taskstats_exit *x,
		    uint64_t after_ns, uint64_t read_ns);
/* Adds the record kept in slot k of tspend to e if it is one of its tasks'. */
void coll_tsrec_adopt_one(struct collector *c, struct pentry *e, size_t k, uint64_t now);
/* Adds to e the records of its tasks that came before it was in the table. */
void coll_tsrec_adopt(struct collector *c, struct pentry *e);

#endif
