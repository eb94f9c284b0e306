// SPDX-License-Identifier: GPL-2.0
/*
 * kpcap-costs: the cost controller's input and output in a kprofcat
 * capture, for tests/experiments/throttle-vs-perf to replay kprof's
 * lowerings through `kprofcat throttle-sim`.
 *
 *   kpcap-costs CAPTURE CPU
 *
 * One line per record of CPU's buffer, in the order the module wrote them:
 *
 *	S TIME_NS COST_NS TICK		a SAMPLE: what the controller was fed
 *					(cost_ns), with the tick it was
 *					counted in
 *	L TIME_NS AVG_NS OLD_ALLOWED_NS MAX_SAMPLES_PER_TICK MAX_SAMPLE_RATE
 *					a RATE_LOWERED record; TIME_NS is the
 *					SAMPLE's before it, whose cost lowered
 *					(as throttle-sim's "lower t=")
 *
 * "S" lines minus their letter are throttle-sim's input.  Exit status 1
 * when the file cannot be read or a record is cut short.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kprof.h>

#include "lib/capture/capture.h"

static int records(const unsigned char *p, size_t len, unsigned long long *prev)
{
	size_t pos = 0;

	while (pos + sizeof(struct kprof_record_header) <= len) {
		const struct kprof_record_header *h = (const void *)(p + pos);
		const struct kprof_sample *s = (const void *)h;
		const struct kprof_rate_lowered *l = (const void *)h;

		if (h->size < sizeof(*h) || h->size > len - pos)
			return -1;
		if (h->type == KPROF_RECORD_SAMPLE && h->size >= sizeof(*s)) {
			printf("S %llu %u %u\n", (unsigned long long)s->time,
			       s->cost_ns, s->tick);
			*prev = s->time;
		} else if (h->type == KPROF_RECORD_RATE_LOWERED &&
			   h->size >= sizeof(*l)) {
			printf("L %llu %llu %llu %llu %llu\n", *prev,
			       (unsigned long long)l->avg_ns,
			       (unsigned long long)l->old_allowed_ns,
			       (unsigned long long)l->max_samples_per_tick,
			       (unsigned long long)l->max_sample_rate);
		}
		pos += h->size;
	}
	return pos == len ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long long prev = 0;
	struct capture_reader *r;
	uint32_t type, arg, cpu;
	const void *data;
	size_t len;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: kpcap-costs CAPTURE CPU\n");
		return 2;
	}
	cpu = strtoul(argv[2], NULL, 10);
	r = capture__open(argv[1]);
	if (!r)
		return 1;
	while ((ret = capture__next(r, &type, &arg, &data, &len)) == 1) {
		if (type != KPCAP_RECORDS || arg != cpu)
			continue;
		if (records(data, len, &prev)) {
			fprintf(stderr, "kpcap-costs: %s: a record of CPU %u is cut short\n",
				argv[1], cpu);
			ret = -1;
			break;
		}
	}
	capture__close_reader(r);
	return ret ? 1 : 0;
}
