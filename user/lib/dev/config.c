// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - event names and CPU lists, as perf spells them.
 *
 * Events: a generic name (cpu-clock, cycles, ...), rNNNN (raw, hex), or a
 * PMU by its sysfs name with terms, perf's syntax: NAME// or
 * NAME/config=0x..,config1=..,period=N/.  The type comes from
 * /sys/bus/event_source/devices/NAME/type; a term is config, config1,
 * config2, period, freq, or one the PMU's format/ directory describes
 * ("config:0-7,32-35": the value's bits, lowest first, into those bits).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "lib/dev/config.h"
#include "lib/util/parse.h"
#include "lib/util/print.h"

static const struct {
	const char *name;
	__u32 type;
	__u64 config;
} events[] = {
	{ "cpu-clock",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "ref-cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

#define PMU_DIR "/bus/event_source/devices"

static const char *sysfs_root = "/sys";

void config__set_sysfs(const char *root)
{
	sysfs_root = root;
}

/* A sysfs name component: no '/', no "..", nothing a shell would mangle. */
static int sane_name(const char *s, size_t len)
{
	size_t i;

	if (!len || (len <= 2 && s[0] == '.'))
		return 0;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return 0;
	return 1;
}

/* The first line of a sysfs file under the PMU's directory, or NULL. */
static char *pmu_read(const char *pmu, const char *file, char *buf, size_t len)
{
	char path[4096];
	FILE *f;
	char *nl;

	snprintf(path, sizeof(path), "%s" PMU_DIR "/%s/%s", sysfs_root, pmu, file);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	if (!fgets(buf, len, f))
		buf = NULL;
	fclose(f);
	if (buf) {
		nl = strchr(buf, '\n');
		if (nl)
			*nl = '\0';
	}
	return buf;
}

/* The PMU's format terms, "a, b, c", for an error message. */
static void pmu_format_names(const char *pmu, char *out, size_t len)
{
	char path[4096];
	struct dirent *d;
	size_t n = 0;
	DIR *dir;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s" PMU_DIR "/%s/format", sysfs_root, pmu);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir)) && n < len) {
		if (d->d_name[0] == '.')
			continue;
		n += snprintf(out + n, len - n, "%s%s", n ? ", " : "", d->d_name);
	}
	closedir(dir);
}

static int parse_value(const char *event, const char *term, const char *s, __u64 *v)
{
	if (parse__u64(s, 0, v)) {
		p_err("bad value '%s' for term '%s' in event '%s': want a number (decimal or 0x hex)",
		      s, term, event);
		return -EINVAL;
	}
	return 0;
}

/* Put @v's bits into the ones a format spec ("config1:0-7,16") names. */
static int apply_format(struct kprof_config *c, const char *event, const char *term,
			const char *spec, __u64 v)
{
	const char *p = strchr(spec, ':');
	unsigned int a, b, bit, used = 0;
	__u64 *field, val = v;
	int n;

	if (!p)
		goto bad;
	if (p - spec == 6 && !strncmp(spec, "config", 6))
		field = &c->config;
	else if (p - spec == 7 && !strncmp(spec, "config1", 7))
		field = &c->config1;
	else if (p - spec == 7 && !strncmp(spec, "config2", 7))
		field = &c->config2;
	else
		goto bad;
	for (p++; *p; p += *p == ',') {
		if (sscanf(p, "%u-%u%n", &a, &b, &n) != 2) {
			if (sscanf(p, "%u%n", &a, &n) != 1)
				goto bad;
			b = a;
		}
		if (a > b || b > 63)
			goto bad;
		p += n;
		for (bit = a; bit <= b; bit++, used++, val >>= 1)
			if (val & 1)
				*field |= 1ULL << bit;
		if (*p && *p != ',')
			goto bad;
	}
	if (val) {
		p_err("value %#llx too big for term '%s' in event '%s': it has %u bits (%s)",
		      (unsigned long long)v, term, event, used, spec);
		return -EINVAL;
	}
	return 0;
bad:
	p_err("term '%s' of event '%s': cannot read its format '%s'", term, event, spec);
	return -EINVAL;
}

static int parse_term(struct kprof_config *c, const char *event, const char *pmu,
		      char *term, int *sample_given)
{
	char *eq = strchr(term, '='), spec[256], names[1024];
	__u64 v = 1;	/* perf: a term without a value is 1 */

	if (eq) {
		*eq = '\0';
		if (parse_value(event, term, eq + 1, &v))
			return -EINVAL;
	}
	if (!strcmp(term, "config")) {
		c->config = v;
	} else if (!strcmp(term, "config1")) {
		c->config1 = v;
	} else if (!strcmp(term, "config2")) {
		c->config2 = v;
	} else if (!strcmp(term, "period") || !strcmp(term, "freq")) {
		if (!v || v >> 63) {
			p_err("bad value %llu for term '%s' in event '%s': want 1 to 2^63-1",
			      (unsigned long long)v, term, event);
			return -EINVAL;
		}
		c->sample = v;
		if (term[0] == 'p')
			c->flags &= ~KPROF_CFG_FREQ;
		else
			c->flags |= KPROF_CFG_FREQ;
		*sample_given = 1;
	} else {
		char file[300];

		snprintf(file, sizeof(file), "format/%s", term);
		if (sane_name(term, strlen(term)) && pmu_read(pmu, file, spec, sizeof(spec)))
			return apply_format(c, event, term, spec, v);
		pmu_format_names(pmu, names, sizeof(names));
		p_err("unknown term '%s' in event '%s': use config, config1, config2, period, freq%s%s",
		      term, event, names[0] ? " or the PMU's format terms: " : "", names);
		return -EINVAL;
	}
	return 0;
}

/* NAME/TERMS/: a PMU from sysfs.  @slash points at the first '/'. */
static int parse_pmu_event(struct kprof_config *c, const char *name, const char *slash,
			   int *sample_given)
{
	size_t len = slash - name;
	char pmu[256], buf[64], *terms, *term, *save, *end;
	const char *close = strchr(slash + 1, '/');
	unsigned long type;
	int ret = 0;

	if (!close || close[1]) {
		p_err("bad event '%s': a PMU event is NAME/TERMS/ with nothing after the last '/' (modifiers: NAME/TERMS/:u or :k, or --user-only, --kernel-only)",
		      name);
		return -EINVAL;
	}
	if (len >= sizeof(pmu) || !sane_name(name, len)) {
		p_err("bad PMU name in event '%s'", name);
		return -EINVAL;
	}
	memcpy(pmu, name, len);
	pmu[len] = '\0';
	if (!pmu_read(pmu, "type", buf, sizeof(buf))) {
		p_err("unknown PMU '%s' in event '%s': no %s%s/%s/type (is its driver loaded? 'ls %s%s' lists the PMUs)",
		      pmu, name, sysfs_root, PMU_DIR, pmu, sysfs_root, PMU_DIR);
		return -ENOENT;
	}
	errno = 0;
	type = strtoul(buf, &end, 10);
	if (errno || end == buf || *end || type > 0xffffffffUL) {
		p_err("PMU '%s': its sysfs type '%s' is not a number", pmu, buf);
		return -EINVAL;
	}
	c->type = type;
	c->config = 0;
	c->config1 = 0;
	c->config2 = 0;

	terms = strndup(slash + 1, close - slash - 1);
	if (!terms) {
		p_err("out of memory parsing event '%s'", name);
		return -ENOMEM;
	}
	for (term = strtok_r(terms, ",", &save); term && !ret; term = strtok_r(NULL, ",", &save))
		ret = parse_term(c, name, pmu, term, sample_given);
	free(terms);
	return ret;
}

/*
 * perf's event modifiers: EVENT:u (user mode only), EVENT:k (kernel only);
 * :uk is both modes, the default.  NAME loses its ":..." in *BASE (static).
 */
static int parse_modifiers(struct kprof_config *c, const char *name, const char **base)
{
	static char buf[256];
	const char *colon = strrchr(name, ':'), *m;
	int u = 0, k = 0;

	*base = name;
	if (!colon || strchr(colon, '/'))
		return 0;
	for (m = colon + 1; *m; m++) {
		if (*m == 'u') {
			u = 1;
		} else if (*m == 'k') {
			k = 1;
		} else {
			p_err("bad modifier '%s' in event '%s': kprof takes :u (user only) and :k (kernel only)",
			      colon + 1, name);
			return -EINVAL;
		}
	}
	if ((size_t)(colon - name) >= sizeof(buf)) {
		p_err("event name '%s' is too long", name);
		return -EINVAL;
	}
	memcpy(buf, name, colon - name);
	buf[colon - name] = '\0';
	*base = buf;
	c->flags &= ~(KPROF_CFG_EXCLUDE_USER | KPROF_CFG_EXCLUDE_KERNEL);
	if (u && !k)
		c->flags |= KPROF_CFG_EXCLUDE_KERNEL;
	else if (k && !u)
		c->flags |= KPROF_CFG_EXCLUDE_USER;
	return 0;
}

int config__parse_event(struct kprof_config *c, const char *event, int *sample_given)
{
	const char *name, *slash;
	size_t i;

	*sample_given = 0;
	if (parse_modifiers(c, event, &name))
		return -EINVAL;
	slash = strchr(name, '/');
	if (slash)
		return parse_pmu_event(c, name, slash, sample_given);
	c->config1 = 0;
	c->config2 = 0;
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		if (!strcmp(name, events[i].name)) {
			c->type = events[i].type;
			c->config = events[i].config;
			return 0;
		}
	}
	if (name[0] == 'r') {
		unsigned long long code;

		if (!parse__u64(name + 1, 16, &code)) {
			c->type = PERF_TYPE_RAW;
			c->config = code;
			return 0;
		}
	}
	p_err("unknown event '%s': use cpu-clock, task-clock, cycles, instructions, cache-references, cache-misses, branches, branch-misses, ref-cycles, rNNNN (raw, hex) or PMU/TERMS/ (e.g. kprof_testpmu//)",
	      name);
	return -EINVAL;
}

int config__parse_cpus(struct kprof_config *c, const char *list)
{
	if (!parse__cpu_list(list, c->cpumask, KPROF_MAX_CPUS))
		return 0;
	p_err("bad CPU list '%s' for -C: use e.g. 0,2-3 (CPUs below %d)", list, KPROF_MAX_CPUS);
	return -EINVAL;
}
