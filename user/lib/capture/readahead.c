// SPDX-License-Identifier: GPL-2.0
/*
 * readahead.c - a thread that maps a capture's pages in ahead of the
 * reader and drops those it is done with, so that the kernel's share of
 * a pass over the records (a page fault for every 16 pages, then their
 * unmapping: about a third of the time kprofcat -i takes over a DWARF
 * capture, whose records are mostly stack bytes) runs on another CPU, at
 * the same time as the unwinding.
 *
 * The reader never waits for it: a page the thread has not mapped yet is
 * faulted in by the reader's own access, as without the thread, so the
 * thread changes when the kernel's work is done, never what is read.
 * The reader tells it where it is at most once per STEP bytes (a mutex
 * and a condition variable, a few hundred times in a 444 MB file); the
 * thread keeps at most AHEAD bytes mapped beyond that point and none
 * behind what the reader released, and when it has not yet taken one
 * release by the next, the reader drops both itself: the memory the
 * thread adds is a window ahead and a release behind (16 MiB), however
 * late the host runs it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/capture/readahead.h"

#define STEP	READAHEAD_STEP
#define AHEAD	READAHEAD_BYTES

struct readahead {
	const unsigned char *map;
	size_t size;
	size_t page;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	/* Under lock. */
	size_t at;		/* the reader's position */
	size_t release;		/* the reader is done with the pages before this */
	size_t claimed;		/* those before this are being or have been dropped */
	size_t mapped;		/* the thread has mapped [at, mapped) */
	int stop;
};

/*
 * Drop the pages in [FROM, TO): TO is a release point (page-aligned), so
 * the page FROM falls in is behind it too, and madvise() wants it whole.
 */
static void drop(struct readahead *ra, size_t from, size_t to)
{
	from &= ~(ra->page - 1);
	if (from < to)
		madvise((void *)(ra->map + from), to - from, MADV_DONTNEED);
}

/*
 * Map [from, to) in by reading a byte of each page: a fault maps in the
 * 16 pages around it (the kernel's fault-around), and is quicker than
 * MADV_POPULATE_READ, which walks the pages one by one.
 */
static void map_in(struct readahead *ra, size_t from, size_t to)
{
	const volatile unsigned char *p;

	for (p = ra->map + from; p < ra->map + to; p += ra->page)
		(void)*p;
}

/* Drop [FROM, TO) with the lock dropped around the system call. */
static void drop_unlocked(struct readahead *ra, size_t from, size_t to)
{
	pthread_mutex_unlock(&ra->lock);
	drop(ra, from, to);
	pthread_mutex_lock(&ra->lock);
}

/*
 * One piece of work, called and returning with the lock held, dropped
 * around the system calls; 0 when there is none.  A piece mapped in
 * while the reader released part of it is dropped again: no page behind
 * the reader stays.
 */
static int work_once(struct readahead *ra)
{
	size_t want = ra->at + AHEAD < ra->size ? ra->at + AHEAD : ra->size;
	size_t from = ra->claimed, to = ra->release;

	if (from < to) {
		ra->claimed = to;
		drop_unlocked(ra, from, to);
		return 1;
	}
	from = ra->at & ~(ra->page - 1);
	from = from > ra->mapped ? from : ra->mapped;
	from = from > ra->claimed ? from : ra->claimed;
	if (from >= want)
		return 0;
	to = from + STEP < want ? from + STEP : want;
	ra->mapped = to;
	pthread_mutex_unlock(&ra->lock);
	map_in(ra, from, to);
	pthread_mutex_lock(&ra->lock);
	if (ra->claimed > from)
		drop_unlocked(ra, from, ra->claimed < to ? ra->claimed : to);
	return 1;
}

static void *readahead_thread(void *arg)
{
	struct readahead *ra = arg;

	pthread_mutex_lock(&ra->lock);
	while (!ra->stop)
		if (!work_once(ra))
			pthread_cond_wait(&ra->wake, &ra->lock);
	pthread_mutex_unlock(&ra->lock);
	return NULL;
}

struct readahead *readahead__start(const void *map, size_t size, size_t at, size_t released)
{
	struct readahead *ra;

	if (size - at < 2 * AHEAD)
		return NULL;	/* as quick to fault in as to start a thread */
	ra = calloc(1, sizeof(*ra));
	if (!ra)
		return NULL;
	ra->map = map;
	ra->size = size;
	ra->page = sysconf(_SC_PAGESIZE);
	ra->at = at;
	ra->release = released;
	ra->claimed = released;
	ra->mapped = at;
	pthread_mutex_init(&ra->lock, NULL);
	pthread_cond_init(&ra->wake, NULL);
	if (pthread_create(&ra->thread, NULL, readahead_thread, ra)) {
		/* The reader faults its pages in itself, as it would. */
		pthread_cond_destroy(&ra->wake);
		pthread_mutex_destroy(&ra->lock);
		free(ra);
		return NULL;
	}
	return ra;
}

void readahead__at(struct readahead *ra, size_t at)
{
	if (at < ra->at + STEP)
		return;
	pthread_mutex_lock(&ra->lock);
	ra->at = at;
	pthread_cond_signal(&ra->wake);
	pthread_mutex_unlock(&ra->lock);
}

void readahead__release(struct readahead *ra, size_t end)
{
	size_t from;

	pthread_mutex_lock(&ra->lock);
	if (ra->claimed < ra->release) {
		/*
		 * The thread has not taken the last release yet (the host
		 * has not run it): drop both here, so that the memory held
		 * never depends on when the thread runs.
		 */
		from = ra->claimed;
		ra->claimed = end;
		ra->release = end;
		pthread_mutex_unlock(&ra->lock);
		drop(ra, from, end);
		return;
	}
	ra->release = end;
	pthread_cond_signal(&ra->wake);
	pthread_mutex_unlock(&ra->lock);
}

void readahead__stop(struct readahead *ra)
{
	if (!ra)
		return;
	pthread_mutex_lock(&ra->lock);
	ra->stop = 1;
	pthread_cond_signal(&ra->wake);
	pthread_mutex_unlock(&ra->lock);
	pthread_join(ra->thread, NULL);
	/* A release the thread had not taken yet. */
	drop(ra, ra->claimed, ra->release);
	pthread_cond_destroy(&ra->wake);
	pthread_mutex_destroy(&ra->lock);
	free(ra);
}
