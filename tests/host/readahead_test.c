// SPDX-License-Identifier: GPL-2.0
/*
 * readahead_test: the capture reader's read-ahead thread
 * (user/lib/capture/readahead.c) maps the pages from the reader's
 * position to READAHEAD_BYTES beyond it and none further, drops the pages
 * the reader released, waits when there is nothing left to map, and
 * joins on stop.  Which pages are mapped is read
 * from /proc/self/pagemap (bit 63, "present", readable without
 * privilege).  The thread works asynchronously: each check waits for the
 * state the thread must reach, with a deadline that only turns a thread
 * that never gets there into a failure instead of a hang.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/capture/readahead.h"

#define FILE_BYTES	(6 * READAHEAD_BYTES)
#define DEADLINE_S	60
/*
 * A fault maps more than its page: the pages around it (fault_around_bytes)
 * and, on newer kernels, the whole large folio it hits.  Both stay within
 * the naturally aligned 2 MiB (a page table's span) holding the page, so
 * "nothing beyond the window" is checked from the window's end rounded
 * up to 2 MiB.
 */
static size_t beyond(size_t end)
{
	return (end + (2UL << 20) - 1) & ~((2UL << 20) - 1);
}

FIXTURE(ra) {
	int fd, pagemap;
	size_t page;
	unsigned char *map;
};

FIXTURE_SETUP(ra)
{
	char path[] = "/tmp/kprof-readahead-XXXXXX";
	static unsigned char chunk[1 << 20];
	size_t i;

	memset(chunk, 0x5a, sizeof(chunk));
	self->page = sysconf(_SC_PAGESIZE);
	self->fd = mkstemp(path);
	ASSERT_LE(0, self->fd);
	unlink(path);
	for (i = 0; i < FILE_BYTES; i += sizeof(chunk))
		ASSERT_EQ((ssize_t)sizeof(chunk), write(self->fd, chunk, sizeof(chunk)));
	self->map = mmap(NULL, FILE_BYTES, PROT_READ, MAP_PRIVATE, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	self->pagemap = open("/proc/self/pagemap", O_RDONLY);
	if (self->pagemap < 0)
		SKIP(return, "no /proc/self/pagemap (CONFIG_PROC_PAGE_MONITOR) to see mappings by");
}

FIXTURE_TEARDOWN(ra)
{
	munmap(self->map, FILE_BYTES);
	close(self->fd);
	if (self->pagemap >= 0)
		close(self->pagemap);
}

/* How many of the pages in [FROM, TO) of the mapping are present. */
static size_t present(struct _test_data_ra *self, size_t from, size_t to)
{
	uint64_t e[512];
	size_t n = 0, pg, i, chunk, len;
	off_t at;

	for (pg = from / self->page; pg < to / self->page; pg += chunk) {
		chunk = to / self->page - pg < 512 ? to / self->page - pg : 512;
		at = ((uintptr_t)self->map / self->page + pg) * sizeof(e[0]);
		len = chunk * sizeof(e[0]);
		if (pread(self->pagemap, e, len, at) != (ssize_t)len)
			return (size_t)-1;
		for (i = 0; i < chunk; i++)
			n += e[i] >> 63;
	}
	return n;
}

/* Wait until [FROM, TO) has WANT pages present; 0 once it has. */
static int wait_present(struct _test_data_ra *self, size_t from, size_t to, size_t want)
{
	struct timespec tick = { 0, 1000000 };
	time_t end = time(NULL) + DEADLINE_S;

	while (present(self, from, to) != want) {
		if (time(NULL) > end)
			return -1;
		nanosleep(&tick, NULL);
	}
	return 0;
}

TEST_F(ra, maps_ahead_of_the_reader_and_no_further)
{
	size_t pages = READAHEAD_BYTES / self->page;
	struct readahead *ra = readahead__start(self->map, FILE_BYTES, 0, 0);

	ASSERT_NE(NULL, ra);
	EXPECT_EQ(0, wait_present(self, 0, READAHEAD_BYTES, pages))
		TH_LOG("%zu of the first %zu pages mapped",
		       present(self, 0, READAHEAD_BYTES), pages);
	/* The reader has not moved: nothing beyond its window. */
	EXPECT_EQ(0, present(self, beyond(READAHEAD_BYTES), FILE_BYTES));

	/* A move of 3 steps: the window follows, to 3 steps + READAHEAD_BYTES. */
	readahead__at(ra, 3 * READAHEAD_STEP);
	EXPECT_EQ(0, wait_present(self, 0, 3 * READAHEAD_STEP + READAHEAD_BYTES,
				  (3 * READAHEAD_STEP + READAHEAD_BYTES) / self->page));
	readahead__stop(ra);
	EXPECT_EQ(0, present(self, beyond(3 * READAHEAD_STEP + READAHEAD_BYTES), FILE_BYTES));
}

TEST_F(ra, drops_the_pages_the_reader_released)
{
	/* The reader's position is any record's: 8-byte aligned. */
	size_t at = 2 * READAHEAD_BYTES + 8, rel = READAHEAD_BYTES + READAHEAD_STEP;
	struct readahead *ra = readahead__start(self->map, FILE_BYTES, 0, 0);

	ASSERT_NE(NULL, ra);
	ASSERT_EQ(0, wait_present(self, 0, READAHEAD_BYTES, READAHEAD_BYTES / self->page));
	readahead__at(ra, at);
	readahead__release(ra, rel);
	EXPECT_EQ(0, wait_present(self, 0, rel, 0))
		TH_LOG("%zu released pages still mapped", present(self, 0, rel));
	EXPECT_EQ(0, wait_present(self, at - 8, at - 8 + READAHEAD_BYTES,
				  READAHEAD_BYTES / self->page));
	readahead__stop(ra);
	/* Released pages stay released; nothing past the window. */
	EXPECT_EQ(0, present(self, 0, rel));
	EXPECT_EQ(0, present(self, beyond(at + READAHEAD_BYTES), FILE_BYTES));
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * With the file's end (not a page boundary) inside the window, the thread
 * maps up to it and then waits: over a 200 ms sleep of the reader, the
 * process uses next to no CPU.  A thread that kept working would use
 * about the 200 ms (all of it unless the host stole more than half of
 * that CPU's time); an idle one uses none, so half is the bound.
 */
TEST_F(ra, waits_once_the_window_reaches_the_end)
{
	size_t size = FILE_BYTES - 100, at = FILE_BYTES - READAHEAD_BYTES / 2;
	struct timespec nap = { 0, 200000000 };
	struct readahead *ra = readahead__start(self->map, size, 0, 0);
	double used;

	ASSERT_NE(NULL, ra);
	readahead__at(ra, at);
	ASSERT_EQ(0, wait_present(self, at & ~(self->page - 1), FILE_BYTES,
				  (FILE_BYTES - (at & ~(self->page - 1))) / self->page));
	used = cpu_seconds();
	nanosleep(&nap, NULL);
	used = cpu_seconds() - used;
	readahead__stop(ra);
	EXPECT_GT(0.1, used) TH_LOG("%.3f s of CPU while the reader slept 0.2 s", used);
}

TEST_F(ra, a_file_within_two_windows_gets_no_thread)
{
	struct readahead *ra = readahead__start(self->map, FILE_BYTES,
						FILE_BYTES - 2 * READAHEAD_BYTES + 1, 0);

	EXPECT_EQ(NULL, ra);
	readahead__stop(ra);
	EXPECT_EQ(0, present(self, 0, FILE_BYTES));
}

TEST_HARNESS_MAIN
