// SPDX-License-Identifier: GPL-2.0
/*
 * span_test: ring__read_span(), the raw path's reader, on synthetic
 * regions: whole records in place, a wrap in two pieces, a bad size that
 * ends the span before it, and the capture of spans
 * (capture__add_records()) read back record by record.
 */
#include <errno.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/capture/capture.h"
#include "lib/dev/ring.h"
#include "lib/util/print.h"
#include "synth.h"

static const uint64_t ips[] = { 0xffffffff81001234ULL, 0x401136, 0x401200 };

FIXTURE(span) {
	struct synth s;
	struct ring *r;
};

FIXTURE_SETUP(span)
{
	ASSERT_EQ(0, synth_init(&self->s, 1));
	self->r = NULL;
	p_set_quiet(1);
}

FIXTURE_TEARDOWN(span)
{
	ring__free(self->r);
	free(self->s.pg);
}

TEST_F(span, whole_records_in_place)
{
	unsigned char buf[256];
	const void *p1, *p2;
	size_t n1, n2, a, b;

	a = synth_sample(buf, 1, 1000, 1, 42, "one", 0, ips, 1, 2);
	synth_write(&self->s, buf, a);
	b = synth_lost(buf, 2000, 5);
	synth_write(&self->s, buf, b);
	self->r = ring__new(self->s.pg, self->s.region_size);
	ASSERT_NE(NULL, self->r);
	ASSERT_EQ(0, ring__read_init(self->r));
	ASSERT_EQ(0, ring__read_span(self->r, &p1, &n1, &p2, &n2));
	/* Where the records lie, not a copy. */
	EXPECT_EQ((const void *)self->s.data, p1);
	EXPECT_EQ(a + b, n1);
	EXPECT_EQ(0, n2);
	EXPECT_EQ(-EAGAIN, ring__read_span(self->r, &p1, &n1, &p2, &n2));
	/* Given back only by consume. */
	EXPECT_EQ(0, self->s.pg->data_tail);
	ring__read_done(self->r);
	EXPECT_EQ(a + b, self->s.pg->data_tail);
	EXPECT_EQ(-EAGAIN, ring__read_init(self->r));
}

TEST_F(span, wrap_in_two_pieces)
{
	unsigned char buf[256];
	const void *p1, *p2;
	size_t n1, n2, a, b;

	/* The second record starts 24 bytes before the end and wraps. */
	b = synth_lost(buf, 1, 1);
	synth_set_pos(&self->s, 5 * SYNTH_DATA_SIZE - 24 - b);
	synth_write(&self->s, buf, b);
	a = synth_sample(buf, 2, 2000, 1, 7, "wrap", KPROF_MISC_USER, ips, 0, 3);
	synth_write(&self->s, buf, a);
	self->r = ring__new(self->s.pg, self->s.region_size);
	ASSERT_NE(NULL, self->r);
	ASSERT_EQ(0, ring__read_init(self->r));
	ASSERT_EQ(0, ring__read_span(self->r, &p1, &n1, &p2, &n2));
	EXPECT_EQ((const void *)(self->s.data + SYNTH_DATA_SIZE - 24 - b), p1);
	EXPECT_EQ(24 + b, n1);
	EXPECT_EQ((const void *)self->s.data, p2);
	EXPECT_EQ(a - 24, n2);
	ring__read_done(self->r);
	EXPECT_EQ(5 * SYNTH_DATA_SIZE - 24 + a, self->s.pg->data_tail);
}

/* The records before a bad size are handed out, the rest dropped. */
TEST_F(span, bad_size_ends_the_span)
{
	unsigned char buf[64];
	struct kprof_record_header *h = (void *)buf;
	const void *p1, *p2;
	size_t n1, n2, good;
	uint64_t pos = 0;

	good = synth_lost(buf, 1, 1);
	synth_put(&self->s, buf, good, &pos);
	synth_lost(buf, 2, 2);
	h->size = 44;
	synth_put(&self->s, buf, good, &pos);
	synth_put(&self->s, buf, synth_lost(buf, 3, 3), &pos);
	synth_publish(&self->s, pos);
	self->r = ring__new(self->s.pg, self->s.region_size);
	ASSERT_NE(NULL, self->r);
	ASSERT_EQ(0, ring__read_init(self->r));
	ASSERT_EQ(0, ring__read_span(self->r, &p1, &n1, &p2, &n2));
	EXPECT_EQ(good, n1 + n2);
	EXPECT_EQ(-EBADMSG, ring__read_span(self->r, &p1, &n1, &p2, &n2));
	ring__read_done(self->r);
	EXPECT_EQ(1, ring__bad_records(self->r));
	EXPECT_EQ(pos - good, ring__discarded_bytes(self->r));
	EXPECT_EQ(pos, self->s.pg->data_tail);
}

TEST_F(span, first_record_bad)
{
	unsigned char buf[64];
	struct kprof_record_header *h = (void *)buf;
	const void *p1, *p2;
	size_t n1, n2, n;

	n = synth_lost(buf, 1, 1);
	h->size = 0;
	synth_write(&self->s, buf, n);
	self->r = ring__new(self->s.pg, self->s.region_size);
	ASSERT_NE(NULL, self->r);
	ASSERT_EQ(0, ring__read_init(self->r));
	EXPECT_EQ(-EBADMSG, ring__read_span(self->r, &p1, &n1, &p2, &n2));
	ring__read_done(self->r);
	EXPECT_EQ(n, ring__discarded_bytes(self->r));
}

/* A wrapped span written as one section reads back as its records. */
TEST_F(span, capture_reads_back_whole_records)
{
	char path[] = "/tmp/span_test.XXXXXX";
	unsigned char buf[256], want[2][256];
	size_t n[2], n1, n2, len, pos;
	struct capture_writer *w;
	struct capture_reader *cr;
	const void *p1, *p2, *data;
	uint32_t type, arg;
	int fd, i, sections = 0;

	synth_set_pos(&self->s, SYNTH_DATA_SIZE - 40);
	for (i = 0; i < 2; i++) {
		n[i] = synth_sample(want[i], i, 1000 + i, 1, 9, "cap", 0, ips, 1, 2);
		memcpy(buf, want[i], n[i]);
		synth_write(&self->s, buf, n[i]);
	}
	self->r = ring__new(self->s.pg, self->s.region_size);
	ASSERT_NE(NULL, self->r);
	ASSERT_EQ(0, ring__read_init(self->r));
	ASSERT_EQ(0, ring__read_span(self->r, &p1, &n1, &p2, &n2));
	ASSERT_LT(0, n2);

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	close(fd);
	w = capture__create(path);
	ASSERT_NE(NULL, w);
	ASSERT_EQ(0, capture__add_records(w, 1, p1, n1, p2, n2));
	ASSERT_EQ(0, capture__close(w));
	cr = capture__open(path);
	ASSERT_NE(NULL, cr);
	while (capture__next(cr, &type, &arg, &data, &len) == 1) {
		if (type != KPCAP_RECORDS)
			continue;
		sections++;
		EXPECT_EQ(1, arg);
		ASSERT_EQ(n[0] + n[1], len);
		for (i = 0, pos = 0; i < 2; pos += n[i], i++)
			EXPECT_EQ(0, memcmp(want[i], (const char *)data + pos, n[i]))
				TH_LOG("record %d", i);
	}
	EXPECT_EQ(1, sections);
	capture__close_reader(cr);
	unlink(path);
}

TEST_HARNESS_MAIN
