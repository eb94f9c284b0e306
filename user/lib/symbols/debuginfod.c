// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfod.c - a libdebuginfod client with a bounded wait (debuginfod.h).
 *
 * libdebuginfod is dlopen()ed on the first query, as elfutils' libdwfl
 * does, so that a run without DEBUGINFOD_URLS (or whose symbols are all
 * local) does not load libcurl, GnuTLS and their twenty libraries (on
 * Debian 12 they cost every run about 3 ms to start and 6 MB of RSS).
 * The package depends on it all the same; a missing library is the one
 * warning below, naming it, and the frames stay [unknown].
 *
 * The client (debuginfod_begin()) is made on the first query.  Its
 * progress callback, called by libdebuginfod at least once a second while
 * a query runs, aborts the query once its deadline has passed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>

#include "lib/symbols/debuginfod.h"
#include "lib/util/print.h"

#define LIBDEBUGINFOD	"libdebuginfod.so.1"

/* The library's functions kprofcat calls, from dlsym(). */
struct libdebuginfod {
	void *handle;

	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *client);
	void (*set_user_data)(debuginfod_client *client, void *data);
	void (*set_progressfn)(debuginfod_client *client, debuginfod_progressfn_t fn);
	int (*find_debuginfo)(debuginfod_client *client, const unsigned char *bid,
			      int len, char **path);
};

/* The progress callback's way back to its client, set with the library. */
static void *(*get_user_data)(debuginfod_client *client);

struct debuginfod {
	struct libdebuginfod lib;	/* loaded with the client */
	debuginfod_client *client;	/* NULL until the first query */
	char *urls;			/* DEBUGINFOD_URLS, for the warning */
	int timeout;			/* seconds, per query */
	double deadline;		/* of the query running */
	int timed_out;			/* the callback aborted it */
	int gave_up;			/* a query failed: ask no more */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* DEBUGINFOD_TIMEOUT: whole seconds, as libdebuginfod reads it. */
static int timeout_of_env(void)
{
	const char *s = getenv(DEBUGINFOD_TIMEOUT_ENV_VAR);
	char *end;
	long t;

	if (!s || !*s)
		return DEBUGINFOD_DEFAULT_TIMEOUT;
	errno = 0;
	t = strtol(s, &end, 10);
	if (errno || *end || t <= 0 || t > 24 * 3600)
		return DEBUGINFOD_DEFAULT_TIMEOUT;
	return t;
}

struct debuginfod *debuginfod__new(void)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
	struct debuginfod *c;

	if (!urls || !urls[strspn(urls, " \t")])
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->urls = strdup(urls);
	if (!c->urls) {
		free(c);
		return NULL;
	}
	c->timeout = timeout_of_env();
	return c;
}

void debuginfod__free(struct debuginfod *c)
{
	if (!c)
		return;
	if (c->client)
		c->lib.end(c->client);
	if (c->lib.handle)
		dlclose(c->lib.handle);
	free(c->urls);
	free(c);
}

/* Nonzero: libdebuginfod ends the query (debuginfod_set_progressfn(3)). */
static int progress(debuginfod_client *client, long done, long total)
{
	struct debuginfod *c = get_user_data(client);

	(void)done;
	(void)total;
	if (now() < c->deadline)
		return 0;
	c->timed_out = 1;
	return 1;
}

/* LIBDEBUGINFOD's functions into L: 0, or -ENOENT after a warning. */
static int lib_load(struct libdebuginfod *l)
{
	l->handle = dlopen(LIBDEBUGINFOD, RTLD_NOW | RTLD_LOCAL);
	if (l->handle) {
		l->begin = dlsym(l->handle, "debuginfod_begin");
		l->end = dlsym(l->handle, "debuginfod_end");
		l->set_user_data = dlsym(l->handle, "debuginfod_set_user_data");
		get_user_data = dlsym(l->handle, "debuginfod_get_user_data");
		l->set_progressfn = dlsym(l->handle, "debuginfod_set_progressfn");
		l->find_debuginfo = dlsym(l->handle, "debuginfod_find_debuginfo");
		if (l->begin && l->end && l->set_user_data && get_user_data &&
		    l->set_progressfn && l->find_debuginfo)
			return 0;
	}
	p_warn("debuginfod: DEBUGINFOD_URLS is set but %s cannot be used (%s): frames of DSOs without local debug symbols stay [unknown] (install libdebuginfod1, or unset DEBUGINFOD_URLS)",
	       LIBDEBUGINFOD, dlerror());
	if (l->handle)
		dlclose(l->handle);
	l->handle = NULL;
	return -ENOENT;
}

static int client_begin(struct debuginfod *c)
{
	if (c->client)
		return 0;
	if (!c->lib.handle && lib_load(&c->lib))
		return -ENOENT;
	c->client = c->lib.begin();
	if (!c->client)
		return -ENOMEM;
	c->lib.set_user_data(c->client, c);
	c->lib.set_progressfn(c->client, progress);
	return 0;
}

/* The one warning: the servers cannot be asked; no more queries. */
static void give_up(struct debuginfod *c, int err)
{
	c->gave_up = 1;
	if (c->timed_out)
		p_warn("debuginfod: no answer from %s within %d s (DEBUGINFOD_TIMEOUT): frames of DSOs without local debug symbols stay [unknown]",
		       c->urls, c->timeout);
	else
		p_warn("debuginfod: asking %s failed: %s: frames of DSOs without local debug symbols stay [unknown] (check the server, or unset DEBUGINFOD_URLS)",
		       c->urls, strerror(err));
}

int debuginfod__find(struct debuginfod *c, const unsigned char *bid, size_t len,
		     char *path, size_t path_len)
{
	char *found = NULL;
	int fd, err;

	if (!c || c->gave_up || !len)
		return -ENOENT;
	err = client_begin(c);
	if (err == -ENOENT) {	/* no library: warned already */
		c->gave_up = 1;
		return -ENOENT;
	}
	if (err) {
		give_up(c, -err);
		return -ENOENT;
	}
	c->timed_out = 0;
	c->deadline = now() + c->timeout;
	fd = c->lib.find_debuginfo(c->client, bid, len, &found);
	if (fd < 0) {
		free(found);
		/* "Not found" is an answer: other DSOs may still be there. */
		if (fd != -ENOENT || c->timed_out)
			give_up(c, -fd);
		return -ENOENT;
	}
	close(fd);
	err = found && strlen(found) < path_len ? 0 : -ENOENT;
	if (!err)
		memcpy(path, found, strlen(found) + 1);
	free(found);
	return err;
}
