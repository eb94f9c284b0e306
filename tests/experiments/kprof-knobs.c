// SPDX-License-Identifier: GPL-2.0
/*
 * kprof-knobs: read and set kprof's throttle knobs (KPROF_IOC_GET_THROTTLE
 * / KPROF_IOC_SET_THROTTLE), the module's counterparts of the
 * kernel.perf_event_max_sample_rate and kernel.perf_cpu_time_max_percent
 * sysctls, for tests/experiments/throttle-vs-perf.
 *
 *   kprof-knobs [-d DEVICE] get
 *   kprof-knobs [-d DEVICE] hz
 *   kprof-knobs [-d DEVICE] set [--semantics ge|gt|shadow]
 *                               [--max-sample-rate N]
 *                               [--cpu-time-max-percent N]
 *                               [--feed-clock 0|1]
 *
 * 'get' prints the current values as the options of 'set', so a script
 * saves them with saved=$(kprof-knobs get) and restores them with
 * kprof-knobs set $saved.  'set' starts from the current values and
 * changes only the ones given; the module applies them with the sysctl
 * handlers' rules (see SET_THROTTLE in include/uapi/linux/kprof.h).
 * 'hz' prints the running kernel's HZ as the module reports it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/kprof.h>

static const char *const sem_names[] = {
	[KPROF_THROTTLE_GE] = "ge",
	[KPROF_THROTTLE_GT] = "gt",
	[KPROF_THROTTLE_SHADOW] = "shadow",
};

static void usage(void)
{
	fprintf(stderr,
		"usage: kprof-knobs [-d DEVICE] get|hz\n"
		"       kprof-knobs [-d DEVICE] set [--semantics ge|gt|shadow] [--max-sample-rate N]\n"
		"                   [--cpu-time-max-percent N]\n"
		"                   [--feed-clock 0|1]   (1: cpu-clock costs feed kprof's controller)\n");
	exit(2);
}

static __u32 parse_u32(const char *opt, const char *s)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > 0xffffffffUL) {
		fprintf(stderr, "kprof-knobs: bad value '%s' for %s: want a number\n", s, opt);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "semantics", required_argument, NULL, 's' },
		{ "max-sample-rate", required_argument, NULL, 'r' },
		{ "cpu-time-max-percent", required_argument, NULL, 'p' },
		{ "feed-clock", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct kprof_throttle_config t = { .size = sizeof(t) };
	const char *dev = "/dev/kprof", *cmd;
	unsigned int i;
	int fd, opt, set;

	if (argc > 2 && !strcmp(argv[1], "-d")) {
		dev = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2)
		usage();
	cmd = argv[1];
	set = !strcmp(cmd, "set");
	if (!set && ((strcmp(cmd, "get") && strcmp(cmd, "hz")) || argc != 2))
		usage();

	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "kprof-knobs: %s: %s%s\n", dev, strerror(errno),
			errno == ENOENT ? " (insmod kmod/kprof.ko)" : "");
		return 1;
	}
	if (!strcmp(cmd, "hz")) {
		struct kprof_info info = { .size = sizeof(info) };

		if (ioctl(fd, KPROF_IOC_GET_INFO, &info)) {
			fprintf(stderr, "kprof-knobs: KPROF_IOC_GET_INFO: %s\n", strerror(errno));
			return 1;
		}
		printf("%u\n", info.hz);
		return 0;
	}
	if (ioctl(fd, KPROF_IOC_GET_THROTTLE, &t)) {
		fprintf(stderr, "kprof-knobs: KPROF_IOC_GET_THROTTLE: %s\n", strerror(errno));
		return 1;
	}
	if (!set) {
		printf("--semantics %s --max-sample-rate %u --cpu-time-max-percent %u --feed-clock %u\n",
		       t.semantics < 3 ? sem_names[t.semantics] : "?",
		       t.max_sample_rate, t.cpu_time_max_percent,
		       !!(t.flags & KPROF_THROTTLE_F_FEED_CLOCK));
		return 0;
	}
	optind = 2;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			for (i = 0; i < 3; i++)
				if (!strcmp(optarg, sem_names[i]))
					break;
			if (i == 3) {
				fprintf(stderr, "kprof-knobs: unknown semantics '%s' (ge, gt or shadow)\n",
					optarg);
				return 2;
			}
			t.semantics = i;
			break;
		case 'r':
			t.max_sample_rate = parse_u32("--max-sample-rate", optarg);
			break;
		case 'p':
			t.cpu_time_max_percent = parse_u32("--cpu-time-max-percent", optarg);
			break;
		case 'f':
			if (parse_u32("--feed-clock", optarg) > 1)
				usage();
			t.flags = (t.flags & ~KPROF_THROTTLE_F_FEED_CLOCK) |
				  (parse_u32("--feed-clock", optarg) ?
				   KPROF_THROTTLE_F_FEED_CLOCK : 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	t.size = sizeof(t);
	if (ioctl(fd, KPROF_IOC_SET_THROTTLE, &t)) {
		fprintf(stderr, "kprof-knobs: KPROF_IOC_SET_THROTTLE (semantics %u, max rate %u, %u%%): %s\n",
			t.semantics, t.max_sample_rate, t.cpu_time_max_percent,
			strerror(errno));
		return 1;
	}
	return 0;
}
