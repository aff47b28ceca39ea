/* recpack: the compact form of an exited process record. */
#include "recpack.h"

#include <string.h>

/* Field order in the packed form; bit i of the header means field i follows. */
enum {
	RP_VALID,
	RP_PID,
	RP_PPID,
	RP_START,
	RP_END,
	RP_ARGV,
	RP_COMM,
	RP_EXIT,
	RP_THREADS,
	RP_NEXEC,
	RP_PEAK_PSS,
	RP_PEAK_T,
	RP_PEAK_RSS,
	RP_UTIME,
	RP_STIME,
	RP_MINFLT,
	RP_MAJFLT,
	RP_WAIT_CPU,
	RP_WAIT_IO,
	RP_NFIELDS
};

static uint64_t recpack_zig(uint64_t d)
{
	return (d << 1) ^ (0 - (d >> 63));
}

static uint64_t recpack_unzig(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

static size_t recpack_put(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

static uint64_t recpack_get(const uint8_t *in, size_t *pos)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = in[(*pos)++];
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return v;
}

/* A field is present when its value in struct proc_rec is not zero; what is
 * written is that value, or for times a wrapping difference, so every uint64_t
 * comes back exactly. */
size_t recpack_encode(const struct proc_rec *r, uint32_t comm_id, uint64_t base_ns,
		      uint8_t *out)
{
	uint64_t f[RP_NFIELDS], v[RP_NFIELDS];
	uint32_t mask = 0;
	size_t n;

	f[RP_VALID] = r->valid;
	f[RP_PID] = (uint64_t)(int64_t)r->pid;
	f[RP_PPID] = (uint64_t)(int64_t)r->ppid;
	f[RP_START] = r->start_ns;
	f[RP_END] = r->end_ns;
	f[RP_ARGV] = r->argv_id;
	f[RP_COMM] = comm_id;
	f[RP_EXIT] = (uint32_t)r->exit_status;
	f[RP_THREADS] = r->threads;
	f[RP_NEXEC] = r->nexec;
	f[RP_PEAK_PSS] = r->peak_pss_kib;
	f[RP_PEAK_T] = r->peak_pss_t_ns;
	f[RP_PEAK_RSS] = r->peak_rss_kib;
	f[RP_UTIME] = r->utime_us;
	f[RP_STIME] = r->stime_us;
	f[RP_MINFLT] = r->minflt;
	f[RP_MAJFLT] = r->majflt;
	f[RP_WAIT_CPU] = r->wait_cpu_us;
	f[RP_WAIT_IO] = r->wait_io_us;
	memcpy(v, f, sizeof(v));
	v[RP_PID] = recpack_zig(f[RP_PID]);
	v[RP_PPID] = recpack_zig(f[RP_PPID]);
	v[RP_START] = recpack_zig(r->start_ns - base_ns);
	v[RP_END] = recpack_zig(r->end_ns - r->start_ns);
	v[RP_PEAK_T] = recpack_zig(r->peak_pss_t_ns - r->start_ns);
	for (int i = 0; i < RP_NFIELDS; i++)
		if (f[i])
			mask |= 1u << i;
	n = recpack_put(out, mask);
	for (int i = 0; i < RP_NFIELDS; i++)
		if (mask & 1u << i)
			n += recpack_put(out + n, v[i]);
	return n;
}

size_t recpack_decode(const uint8_t *in, uint64_t base_ns, struct proc_rec *r,
		      uint32_t *comm_id)
{
	uint64_t v[RP_NFIELDS] = { 0 };
	size_t pos = 0;
	uint32_t mask = (uint32_t)recpack_get(in, &pos);

	for (uint32_t m = mask; m; m &= m - 1)
		v[__builtin_ctz(m)] = recpack_get(in, &pos);
	r->valid = (uint32_t)v[RP_VALID];
	r->pid = (pid_t)(int64_t)recpack_unzig(v[RP_PID]);
	r->ppid = (pid_t)(int64_t)recpack_unzig(v[RP_PPID]);
	r->start_ns = mask & 1u << RP_START ? base_ns + recpack_unzig(v[RP_START]) : 0;
	r->end_ns = mask & 1u << RP_END ? r->start_ns + recpack_unzig(v[RP_END]) : 0;
	r->argv_id = (uint32_t)v[RP_ARGV];
	*comm_id = (uint32_t)v[RP_COMM];
	r->exit_status = (int)(uint32_t)v[RP_EXIT];
	r->threads = (uint32_t)v[RP_THREADS];
	r->nexec = (uint32_t)v[RP_NEXEC];
	r->pss_kib = 0;
	r->rss_kib = 0;
	r->peak_pss_kib = v[RP_PEAK_PSS];
	r->peak_pss_t_ns =
		mask & 1u << RP_PEAK_T ? r->start_ns + recpack_unzig(v[RP_PEAK_T]) : 0;
	r->peak_rss_kib = v[RP_PEAK_RSS];
	r->pss_age_ns = 0;
	r->utime_us = v[RP_UTIME];
	r->stime_us = v[RP_STIME];
	r->minflt = v[RP_MINFLT];
	r->majflt = v[RP_MAJFLT];
	r->wait_cpu_us = v[RP_WAIT_CPU];
	r->wait_io_us = v[RP_WAIT_IO];
	return pos;
}
