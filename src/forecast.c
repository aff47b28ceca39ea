/* forecast.c: the slot simulation (forecast.h). Event by event: between two
 * events (a job's end, a step of the clock) the running jobs progress at
 * constant rates, so each end falls where it would, and the PSS is summed
 * at each step and at each start. */
#include "forecast.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { JOB_WAITING, JOB_RUNNING, JOB_DONE };

/* The simulation's state: what waits, what runs, how far each has come. */
struct sim {
	const struct forecast_model *m;
	unsigned slots;
	unsigned char *state;
	uint32_t *left;          /* jobs each still waits for */
	size_t *after_off;       /* the jobs waiting on j: after[after_off[j]..after_off[j + 1]) */
	uint32_t *after;
	size_t *heap, nheap;     /* jobs ready to start, the lowest index first */
	size_t *run, nrun;       /* the running jobs */
	double *prog, *rate;     /* each running job's progress (recorded ns), rate */
	double *part, *file;     /* scratch, a running job each: its own part, its file part */
	char *taken;
	double *pmax;            /* per program: its largest file part now (< 0: none running) */
	size_t *pidx;            /* and which running job holds it */
	uint32_t *touched;
	double t;                /* ns since the first job could start */
	struct forecast_result *out;
};

static void heap_push(struct sim *s, size_t j)
{
	size_t i = s->nheap++;
	while (i && s->heap[(i - 1) / 2] > j) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = j;
}

static size_t heap_pop(struct sim *s)
{
	size_t top = s->heap[0], last = s->heap[--s->nheap], i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && s->heap[c + 1] < s->heap[c])
			c++;
		if (s->heap[c] >= last)
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

/* Job j ended: the jobs waiting on it that wait on nothing more are ready. */
static void job_done(struct sim *s, size_t j)
{
	s->state[j] = JOB_DONE;
	for (size_t k = s->after_off[j]; k < s->after_off[j + 1]; k++)
		if (--s->left[s->after[k]] == 0)
			heap_push(s, s->after[k]);
}

/* Checks the model and builds who waits on whom. Returns 0, -EINVAL or
 * -ENOMEM. */
static int sim_links(struct sim *s)
{
	const struct forecast_model *m = s->m;
	size_t total = 0;

	for (size_t j = 0; j < m->njobs; j++) {
		const struct forecast_job *jb = &m->jobs[j];
		if (jb->prog >= m->nprogs || (jb->ndeps && !jb->deps))
			return -EINVAL;
		for (uint32_t d = 0; d < jb->ndeps; d++)
			if (jb->deps[d] >= j)
				return -EINVAL;
		total += jb->ndeps;
	}
	if (!(s->after = malloc((total + 1) * sizeof(*s->after))))
		return -ENOMEM;
	memset(s->after_off, 0, (m->njobs + 1) * sizeof(*s->after_off));
	for (size_t j = 0; j < m->njobs; j++)
		for (uint32_t d = 0; d < m->jobs[j].ndeps; d++)
			s->after_off[m->jobs[j].deps[d] + 1]++;
	for (size_t j = 0; j < m->njobs; j++)
		s->after_off[j + 1] += s->after_off[j];
	/* left[] counts what is filled in so far, then what each waits for */
	memset(s->left, 0, m->njobs * sizeof(*s->left));
	for (size_t j = 0; j < m->njobs; j++)
		for (uint32_t d = 0; d < m->jobs[j].ndeps; d++) {
			uint32_t p = m->jobs[j].deps[d];
			s->after[s->after_off[p] + s->left[p]++] = (uint32_t)j;
		}
	for (size_t j = 0; j < m->njobs; j++)
		s->left[j] = m->jobs[j].ndeps;
	for (size_t j = 0; j < m->njobs; j++)
		if (!s->left[j])
			heap_push(s, j);
	return 0;
}

static void sim_free(struct sim *s)
{
	free(s->state);
	free(s->left);
	free(s->after_off);
	free(s->after);
	free(s->heap);
	free(s->run);
	free(s->prog);
	free(s->rate);
	free(s->part);
	free(s->file);
	free(s->taken);
	free(s->pmax);
	free(s->pidx);
	free(s->touched);
}

static int sim_alloc(struct sim *s)
{
	size_t n = s->m->njobs + 1, np = (size_t)s->m->nprogs + 1, nr = s->slots + 1;

	s->state = calloc(n, 1);
	s->left = malloc(n * sizeof(*s->left));
	s->after_off = malloc((n + 1) * sizeof(*s->after_off));
	s->heap = malloc(n * sizeof(*s->heap));
	s->run = malloc(nr * sizeof(*s->run));
	s->prog = malloc(nr * sizeof(*s->prog));
	s->rate = malloc(nr * sizeof(*s->rate));
	s->part = malloc(nr * sizeof(*s->part));
	s->file = malloc(nr * sizeof(*s->file));
	s->taken = malloc(nr);
	s->pmax = malloc(np * sizeof(*s->pmax));
	s->pidx = malloc(np * sizeof(*s->pidx));
	s->touched = malloc(np * sizeof(*s->touched));
	if (!s->state || !s->left || !s->after_off || !s->heap || !s->run || !s->prog || !s->rate || !s->pmax ||
	    !s->part || !s->file || !s->taken ||
	    !s->pidx || !s->touched)
		return -ENOMEM;
	for (size_t p = 0; p < np; p++)
		s->pmax[p] = -1;
	return 0;
}

/* x (>= 0) rounded, UINT64_MAX past it. */
static uint64_t u64_of(double x)
{
	return x >= 0x1p64 ? UINT64_MAX : x > 0 ? (uint64_t)(x + 0.5) : 0;
}

/* a + b, UINT64_MAX past it. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Job jb's PSS at x_ns of its recorded progress (its curve on a step of
 * step_ns; 0 before its start and for a job of no known PSS). */
static double job_pss(const struct forecast_job *jb, uint64_t step_ns, double x_ns)
{
	if (!jb->npss || !step_ns || !(x_ns >= 0))
		return 0;
	double k = floor(x_ns / (double)step_ns);
	size_t i = k >= (double)jb->npss ? jb->npss - 1 : (size_t)k;
	return jb->pss_kib[i];
}

/* The running jobs' parts of a new peak, largest first, into out. */
static void sim_peak_jobs(struct sim *s)
{
	struct forecast_result *o = s->out;
	const double *part = s->part;
	char *taken = s->taken;

	memset(taken, 0, s->nrun);
	o->n_at_peak = 0;
	while (o->n_at_peak < FORECAST_PEAK_JOBS && o->n_at_peak < s->nrun) {
		size_t best = s->nrun;
		for (size_t k = 0; k < s->nrun; k++)
			if (!taken[k] && (best == s->nrun || part[k] > part[best] ||
					  (part[k] == part[best] && s->run[k] < s->run[best])))
				best = k;
		taken[best] = 1;
		o->at_peak[o->n_at_peak++] = (struct forecast_peak_job){s->run[best], u64_of(part[best])};
	}
}

/* The PSS now: the running jobs' own parts, each program's largest
 * file-backed part, the tool's; a new peak is kept with its jobs. */
static void sim_eval(struct sim *s)
{
	const struct forecast_model *m = s->m;
	double total = (double)m->tool_kib, *part = s->part, *file = s->file;
	size_t nt = 0;

	for (size_t k = 0; k < s->nrun; k++) {
		const struct forecast_job *jb = &m->jobs[s->run[k]];
		double p = job_pss(jb, m->step_ns, s->prog[k]);
		part[k] = p * jb->anon_share;
		file[k] = p * jb->file_mult;
		total += part[k];
		if (s->pmax[jb->prog] < 0)
			s->touched[nt++] = jb->prog;
		if (file[k] > s->pmax[jb->prog]) {
			s->pmax[jb->prog] = file[k];
			s->pidx[jb->prog] = k;
		}
	}
	for (size_t i = 0; i < nt; i++)
		total += s->pmax[s->touched[i]];
	uint64_t now = u64_of(total);
	if (now > s->out->peak_kib) {
		for (size_t k = 0; k < s->nrun; k++)
			if (s->pidx[m->jobs[s->run[k]].prog] == k)
				part[k] += file[k];
		s->out->peak_kib = now;
		s->out->peak_t_ns = add_sat(u64_of(s->t), m->head_ns);
		s->out->running_at_peak = (unsigned)s->nrun;
		sim_peak_jobs(s);
	}
	for (size_t i = 0; i < nt; i++)
		s->pmax[s->touched[i]] = -1;
}

/* Starts ready jobs into the free slots, the lowest index first; a barrier
 * ends where it starts. Returns how many jobs started. */
static size_t sim_start(struct sim *s)
{
	size_t started = 0;

	while (s->nheap && (s->nrun < s->slots || (s->m->jobs[s->heap[0]].flags & FORECAST_BARRIER))) {
		size_t j = heap_pop(s);
		if (s->m->jobs[j].flags & FORECAST_BARRIER) {
			job_done(s, j);
			continue;
		}
		s->state[j] = JOB_RUNNING;
		s->run[s->nrun] = j;
		s->prog[s->nrun++] = 0;
		started++;
	}
	if (s->nrun > s->out->most_running)
		s->out->most_running = (unsigned)s->nrun;
	return started;
}

/* Each running job's rate: 1, or less when the CPU they ask for together
 * passes the cores (the CPU-bound part of each stretched by as much). */
static void sim_rates(struct sim *s)
{
	double *share = s->part, want = 0;

	for (size_t k = 0; k < s->nrun; k++) {
		const struct forecast_job *jb = &s->m->jobs[s->run[k]];
		share[k] = jb->dur_ns ? fmin(1.0, (double)jb->cpu_ns / (double)jb->dur_ns) : 0;
		want += share[k];
	}
	double stretch = want > s->m->cores ? want / s->m->cores : 1;
	for (size_t k = 0; k < s->nrun; k++)
		s->rate[k] = 1 / ((1 - share[k]) + share[k] * stretch);
}

/* Runs the clock to the next event (a step, or a job's end) and ends the
 * jobs that are through, the PSS summed first (a job's last, partial step
 * is counted even when it ends between two steps). */
static void sim_advance(struct sim *s, double *next_tick)
{
	double dt = *next_tick - s->t;

	sim_rates(s);
	for (size_t k = 0; k < s->nrun; k++) {
		double rest = ((double)s->m->jobs[s->run[k]].dur_ns - s->prog[k]) / s->rate[k];
		if (rest < dt)
			dt = rest;
	}
	if (dt < 0)
		dt = 0;
	s->t += dt;
	for (size_t k = 0; k < s->nrun; k++)
		s->prog[k] += dt * s->rate[k];
	int summed = s->t >= *next_tick, ending = 0;
	if (summed)
		*next_tick += (double)s->m->step_ns;
	for (size_t k = 0; k < s->nrun && !summed && !ending; k++)
		ending = s->prog[k] >= (double)s->m->jobs[s->run[k]].dur_ns - 0.5;
	if (summed || ending)
		sim_eval(s);
	for (size_t k = 0; k < s->nrun;) {
		size_t j = s->run[k];
		if (s->prog[k] < (double)s->m->jobs[j].dur_ns - 0.5) {
			k++;
			continue;
		}
		job_done(s, j);
		s->nrun--;
		s->run[k] = s->run[s->nrun];
		s->prog[k] = s->prog[s->nrun];
	}
}

int forecast_run(const struct forecast_model *m, unsigned slots, struct forecast_result *out)
{
	struct sim s = {.m = m, .slots = slots, .out = out};
	int r;

	memset(out, 0, sizeof(*out));
	out->slots = slots;
	if (!slots || slots > FORECAST_SLOTS_MAX || !m->step_ns || !(m->cores > 0) || (m->njobs && !m->jobs))
		return -EINVAL;
	if ((r = sim_alloc(&s)) < 0 || (r = sim_links(&s)) < 0) {
		sim_free(&s);
		return r;
	}
	double next_tick = 0;
	out->peak_kib = m->tool_kib;
	for (;;) {
		if (sim_start(&s))
			sim_eval(&s);
		if (!s.nrun)
			break;
		sim_advance(&s, &next_tick);
	}
	out->wall_ns = add_sat(add_sat(m->head_ns, u64_of(s.t)), m->tail_ns);
	if (!out->peak_t_ns)
		out->peak_t_ns = m->head_ns;
	sim_free(&s);
	return 0;
}
