// SPDX-License-Identifier: GPL-2.0
/*
 * decode_test: kprofcat's ring reader, record decoder and cross-CPU merge
 * on synthetic regions: normal, wrapped, truncated, oversized, zero and
 * unaligned sizes, unknown types, ABI version mismatch, merge order.
 */
#include <errno.h>

#include "kselftest_harness.h"

#include "lib/stream/decode.h"
#include "lib/stream/merge.h"
#include "lib/util/print.h"
#include "lib/dev/ring.h"
#include "synth.h"

FIXTURE(ring) {
	struct synth s;
	struct ring *r;
	struct decode_stats st;
};

FIXTURE_SETUP(ring)
{
	ASSERT_EQ(0, synth_init(&self->s, 3));
	memset(&self->st, 0, sizeof(self->st));
	self->r = NULL;
	p_set_quiet(1);
}

FIXTURE_TEARDOWN(ring)
{
	ring__free(self->r);
	free(self->s.pg);
}

static const uint64_t ips[] = {
	0xffffffff81001234ULL, 0xffffffff81005678ULL, 0x401136, 0x401200, 0x401300,
};

TEST_F(ring, reads_and_decodes_in_order)
{
	unsigned char buf[256];
	struct kp_record rec;
	const void *p;
	size_t len;

	synth_write(&self->s, buf, synth_sample(buf, 1, 1000, 3, 42, "hot3", 0, ips, 2, 3));
	synth_write(&self->s, buf, synth_lost(buf, 2000, 5));
	self->r = ring__new(self->s.pg, self->s.region_size);
	ASSERT_NE(NULL, self->r);
	ASSERT_EQ(0, ring__read_init(self->r));

	ASSERT_EQ(0, ring__read_event(self->r, &p, &len));
	ASSERT_EQ(sizeof(struct kprof_sample) + 5 * 8, len);
	ASSERT_EQ(0, decode__record(p, len, 3, &rec, &self->st));
	EXPECT_EQ(KPROF_RECORD_SAMPLE, rec.type);
	EXPECT_EQ(1000, rec.time);
	EXPECT_EQ(42, rec.sample.pid);
	EXPECT_EQ(2, rec.sample.nr_kernel);
	EXPECT_EQ(3, rec.sample.nr_user);
	EXPECT_EQ(0x401300, rec.sample.ips[4]);
	EXPECT_STREQ("hot3", rec.sample.comm);
	ring__consume(self->r);

	ASSERT_EQ(0, ring__read_event(self->r, &p, &len));
	ASSERT_EQ(0, decode__record(p, len, 3, &rec, &self->st));
	EXPECT_EQ(KPROF_RECORD_LOST, rec.type);
	EXPECT_EQ(2000, rec.time);
	EXPECT_EQ(5, rec.lost.full);
	EXPECT_EQ(3, rec.cpu);
	ring__consume(self->r);

	EXPECT_EQ(-EAGAIN, ring__read_event(self->r, &p, &len));
	ring__read_done(self->r);
	/* Everything read was given back. */
	EXPECT_EQ(self->s.pg->data_head, self->s.pg->data_tail);
	EXPECT_EQ(-EAGAIN, ring__read_init(self->r));
	EXPECT_EQ(1, self->st.records[KPROF_RECORD_SAMPLE]);
	EXPECT_EQ(1, self->st.records[KPROF_RECORD_LOST]);
}

TEST_F(ring, tail_is_released_only_on_consume)
{
	unsigned char buf[64];
	const void *p;
	size_t len;

	synth_write(&self->s, buf, synth_lost(buf, 1, 1));
	self->r = ring__new(self->s.pg, self->s.region_size);
	ASSERT_NE(NULL, self->r);
	ASSERT_EQ(0, ring__read_init(self->r));
	ASSERT_EQ(0, ring__read_event(self->r, &p, &len));
	EXPECT_EQ(0, self->s.pg->data_tail);
	ring__consume(self->r);
	EXPECT_EQ(len, self->s.pg->data_tail);
}

TEST_F(ring, wrapped_record_is_copied_whole)
{
	unsigned char buf[256], want[256];
	struct kp_record rec;
	const void *p;
	size_t len, n;

	/* Start 40 bytes before the end: the 120-byte sample wraps. */
	synth_set_pos(&self->s, 3 * SYNTH_DATA_SIZE - 40);
	n = synth_sample(want, 9, 5000, 3, 7, "wrap", KPROF_MISC_USER, ips + 2, 0, 3);
	memcpy(buf, want, n);
	synth_write(&self->s, buf, n);
	self->r = ring__new(self->s.pg, self->s.region_size);
	ASSERT_NE(NULL, self->r);
	ASSERT_EQ(0, ring__read_init(self->r));
	ASSERT_EQ(0, ring__read_event(self->r, &p, &len));
	ASSERT_EQ(n, len);
	EXPECT_EQ(0, memcmp(want, p, n));
	ASSERT_EQ(0, decode__record(p, len, 3, &rec, &self->st));
	EXPECT_EQ(0x401300, rec.sample.ips[2]);
	ring__consume(self->r);
	ring__read_done(self->r);
	EXPECT_EQ(3 * SYNTH_DATA_SIZE - 40 + n, self->s.pg->data_tail);
}

TEST_F(ring, head_more_than_a_buffer_ahead_is_rejected)
{
	const void *p;
	size_t len;

	self->r = ring__new(self->s.pg, self->s.region_size);
	ASSERT_NE(NULL, self->r);
	synth_publish(&self->s, SYNTH_DATA_SIZE + 8);
	EXPECT_EQ(-EBADMSG, ring__read_init(self->r));
	EXPECT_EQ(-EBADMSG, ring__read_event(self->r, &p, &len));
	ring__read_done(self->r);
	EXPECT_EQ(SYNTH_DATA_SIZE + 8, self->s.pg->data_tail);
}

TEST_F(ring, unknown_type_is_skipped_and_counted)
{
	unsigned char buf[256];
	struct kprof_record_header *h = (void *)buf;
	struct kp_record rec;
	const void *p;
	size_t len;

	h->type = 99;
	h->misc = 0;
	h->size = 24;
	memset(buf + 8, 0xaa, 16);
	synth_write(&self->s, buf, 24);
	synth_write(&self->s, buf, synth_lost(buf, 3, 1));
	self->r = ring__new(self->s.pg, self->s.region_size);
	ASSERT_NE(NULL, self->r);
	ASSERT_EQ(0, ring__read_init(self->r));
	ASSERT_EQ(0, ring__read_event(self->r, &p, &len));
	EXPECT_EQ(1, decode__record(p, len, 3, &rec, &self->st));
	ASSERT_EQ(0, ring__read_event(self->r, &p, &len));
	EXPECT_EQ(0, decode__record(p, len, 3, &rec, &self->st));
	EXPECT_EQ(KPROF_RECORD_LOST, rec.type);
	EXPECT_EQ(1, self->st.unknown);
	EXPECT_EQ(0, self->st.bad);
}

FIXTURE(bad_size) {
	struct synth s;
	struct ring *r;
};

FIXTURE_SETUP(bad_size)
{
	ASSERT_EQ(0, synth_init(&self->s, 0));
	self->r = NULL;
	p_set_quiet(1);
}

FIXTURE_TEARDOWN(bad_size)
{
	ring__free(self->r);
	free(self->s.pg);
}

/* One bad header size per variant; the record after it must not be read. */
FIXTURE_VARIANT(bad_size) {
	uint16_t size;		/* header.size written */
	int publish_short;	/* publish fewer bytes than the size says */
};

FIXTURE_VARIANT_ADD(bad_size, zero_size) { .size = 0xffff };
FIXTURE_VARIANT_ADD(bad_size, below_header) { .size = 4 };
FIXTURE_VARIANT_ADD(bad_size, unaligned) { .size = 44 };
FIXTURE_VARIANT_ADD(bad_size, oversized) { .size = SYNTH_DATA_SIZE + 8 };
FIXTURE_VARIANT_ADD(bad_size, truncated) {
	.size = sizeof(struct kprof_lost), .publish_short = 1
};

TEST_F(bad_size, rejected_and_the_rest_dropped)
{
	unsigned char buf[64];
	struct kprof_record_header *h = (void *)buf;
	uint64_t pos = 0;
	const void *p;
	size_t len, n;

	n = synth_lost(buf, 1, 1);
	h->size = variant->size == 0xffff ? 0 : variant->size;
	synth_put(&self->s, buf, n, &pos);
	if (variant->publish_short)
		pos -= 8;	/* the kernel published all but 8 bytes */
	else
		synth_put(&self->s, buf, synth_lost(buf, 2, 2), &pos);
	synth_publish(&self->s, pos);
	self->r = ring__new(self->s.pg, self->s.region_size);
	ASSERT_NE(NULL, self->r);
	ASSERT_EQ(0, ring__read_init(self->r));
	EXPECT_EQ(-EBADMSG, ring__read_event(self->r, &p, &len));
	EXPECT_EQ(-EBADMSG, ring__read_event(self->r, &p, &len));
	ring__read_done(self->r);
	EXPECT_EQ(1, ring__bad_records(self->r));
	EXPECT_EQ(pos, ring__discarded_bytes(self->r));
	EXPECT_EQ(pos, self->s.pg->data_tail);
}

TEST(decode_rejects_records_too_short_for_their_type)
{
	struct decode_stats st = { 0 };
	unsigned char buf[512];
	struct kprof_sample *s = (void *)buf;
	struct kp_record rec;
	size_t n;

	p_set_quiet(1);
	/* Frames that do not fit in the size. */
	n = synth_sample(buf, 1, 1, 0, 1, "x", 0, ips, 2, 3);
	s->nr_user = 4;
	EXPECT_EQ(-EBADMSG, decode__record(buf, n, 0, &rec, &st));
	/* More frames than the ABI allows. */
	s->nr_user = KPROF_MAX_STACK + 1;
	EXPECT_EQ(-EBADMSG, decode__record(buf, sizeof(buf), 0, &rec, &st));
	/* A SAMPLE shorter than its fixed part. */
	s->header.size = 72;
	EXPECT_EQ(-EBADMSG, decode__record(buf, 72, 0, &rec, &st));
	/* A LOST record cut short. */
	n = synth_lost(buf, 1, 1);
	EXPECT_EQ(-EBADMSG, decode__record(buf, 40, 0, &rec, &st));
	/* A THROTTLE cut short. */
	synth_throttle(buf, KPROF_RECORD_THROTTLE, 5);
	EXPECT_EQ(-EBADMSG, decode__record(buf, 32, 0, &rec, &st));
	EXPECT_EQ(5, st.bad);
	/* Longer than known (a compatible newer producer): accepted. */
	n = synth_sample(buf, 1, 1, 0, 1, "x", 0, ips, 1, 0);
	EXPECT_EQ(0, decode__record(buf, n + 16, 0, &rec, &st));
	/* comm is always terminated. */
	memset(s->comm, 'A', sizeof(s->comm));
	EXPECT_EQ(0, decode__record(buf, n, 0, &rec, &st));
	EXPECT_EQ(15, strlen(rec.sample.comm));
}

FIXTURE(abi) {
	struct synth s;
};

FIXTURE_VARIANT(abi) {
	uint32_t version, compat;
	uint64_t data_size;
	int err;		/* 0: accepted */
};

FIXTURE_VARIANT_ADD(abi, same) {
	.version = KPROF_ABI_VERSION,
	.compat = KPROF_ABI_COMPAT_VERSION,
	.data_size = SYNTH_DATA_SIZE,
	.err = 0,
};

FIXTURE_VARIANT_ADD(abi, newer_compatible) {
	.version = KPROF_ABI_VERSION + 1,
	.compat = KPROF_ABI_VERSION,
	.data_size = SYNTH_DATA_SIZE,
	.err = 0,
};

FIXTURE_VARIANT_ADD(abi, newer_incompatible) {
	.version = KPROF_ABI_VERSION + 1,
	.compat = KPROF_ABI_VERSION + 1,
	.data_size = SYNTH_DATA_SIZE,
	.err = EPROTO,
};

FIXTURE_VARIANT_ADD(abi, older) {
	.version = KPROF_ABI_VERSION - 1,
	.compat = 0,
	.data_size = SYNTH_DATA_SIZE,
	.err = EPROTO,
};

FIXTURE_VARIANT_ADD(abi, size_not_power_of_two) {
	.version = KPROF_ABI_VERSION,
	.compat = KPROF_ABI_COMPAT_VERSION,
	.data_size = 3000,
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(abi, data_past_region) {
	.version = KPROF_ABI_VERSION,
	.compat = KPROF_ABI_COMPAT_VERSION,
	.data_size = 2 * SYNTH_DATA_SIZE,
	.err = EINVAL,
};

FIXTURE_SETUP(abi)
{
	ASSERT_EQ(0, synth_init(&self->s, 0));
	p_set_quiet(1);
}

FIXTURE_TEARDOWN(abi)
{
	free(self->s.pg);
}

TEST_F(abi, control_page_is_checked)
{
	struct ring *r;

	self->s.pg->version = variant->version;
	self->s.pg->compat_version = variant->compat;
	self->s.pg->data_size = variant->data_size;
	errno = 0;
	r = ring__new(self->s.pg, self->s.region_size);
	if (!variant->err) {
		ASSERT_NE(NULL, r);
		ring__free(r);
	} else {
		ASSERT_EQ(NULL, r);
		ASSERT_EQ(variant->err, errno);
	}
}

struct collected {
	uint64_t times[16];
	unsigned int cpus[16];
	int n;
};

static int collect(void *ctx, unsigned int cpu, const void *rec, size_t len)
{
	struct collected *c = ctx;
	const struct kprof_lost *l = rec;

	(void)len;
	c->times[c->n] = l->time;
	c->cpus[c->n++] = cpu;
	return 0;
}

static void push_lost(struct __test_metadata *_metadata, struct merge *m,
		      unsigned int cpu, uint64_t t)
{
	unsigned char buf[64];
	size_t n = synth_lost(buf, t, 1);

	ASSERT_EQ(0, merge__push(m, t, cpu, buf, n));
}

TEST(merge_orders_cpus_by_time_within_the_window)
{
	struct merge *m = merge__new(100, 1000);
	struct collected c = { 0 };

	ASSERT_NE(NULL, m);
	/* CPU 0 and CPU 1 each in order, interleaved in time. */
	push_lost(_metadata, m, 0, 10);
	push_lost(_metadata, m, 0, 40);
	push_lost(_metadata, m, 1, 20);
	push_lost(_metadata, m, 1, 30);
	push_lost(_metadata, m, 0, 250);
	/* Newest is 250: only records at <= 150 leave the window. */
	ASSERT_EQ(0, merge__flush(m, 0, collect, &c));
	ASSERT_EQ(4, c.n);
	EXPECT_EQ(10, c.times[0]);
	EXPECT_EQ(20, c.times[1]);
	EXPECT_EQ(1, c.cpus[1]);
	EXPECT_EQ(30, c.times[2]);
	EXPECT_EQ(40, c.times[3]);
	EXPECT_EQ(1, merge__held(m));
	/* Late but inside the window: still in order. */
	push_lost(_metadata, m, 1, 200);
	ASSERT_EQ(0, merge__flush(m, 1, collect, &c));
	ASSERT_EQ(6, c.n);
	EXPECT_EQ(200, c.times[4]);
	EXPECT_EQ(250, c.times[5]);
	EXPECT_EQ(0, merge__misordered(m));
	/* Older than what already left: released, and counted. */
	push_lost(_metadata, m, 1, 5);
	ASSERT_EQ(0, merge__flush(m, 1, collect, &c));
	EXPECT_EQ(1, merge__misordered(m));
	merge__free(m);
}

/*
 * A record older than the last one of its CPU leaves that CPU's FIFO for
 * the heap: the order out is still time, then arrival, across all of them.
 */
TEST(merge_orders_records_a_cpu_queued_out_of_order)
{
	static const uint64_t want[] = { 10, 20, 20, 25, 30, 35 };
	struct merge *m = merge__new(1000, 1000);
	struct collected c = { 0 };
	unsigned int i;

	ASSERT_NE(NULL, m);
	push_lost(_metadata, m, 0, 10);
	push_lost(_metadata, m, 0, 30);
	push_lost(_metadata, m, 0, 20);		/* older than 30: the heap */
	push_lost(_metadata, m, 1, 20);		/* same time, later arrival */
	push_lost(_metadata, m, 1, 25);
	push_lost(_metadata, m, 0, 35);
	ASSERT_EQ(0, merge__flush(m, 1, collect, &c));
	ASSERT_EQ(6, c.n);
	for (i = 0; i < 6; i++)
		EXPECT_EQ(want[i], c.times[i]) TH_LOG("record %u", i);
	EXPECT_EQ(0, c.cpus[1]);	/* the 20 of CPU 0 came first */
	EXPECT_EQ(1, c.cpus[2]);
	EXPECT_EQ(0, merge__misordered(m));
	merge__free(m);
}

TEST(merge_bounds_what_it_holds)
{
	struct merge *m = merge__new(1000000, 2);
	struct collected c = { 0 };

	ASSERT_NE(NULL, m);
	push_lost(_metadata, m, 0, 3);
	push_lost(_metadata, m, 0, 1);
	push_lost(_metadata, m, 0, 2);
	ASSERT_EQ(0, merge__flush(m, 0, collect, &c));
	ASSERT_EQ(1, c.n);
	EXPECT_EQ(1, c.times[0]);
	merge__free(m);
}

/*
 * Records held by reference come out in the same order, from where they
 * lie, and the lowest one held says how much of their buffer is done.
 */
TEST(merge_holds_records_by_reference)
{
	unsigned char buf[4][64];
	static const uint64_t times[] = { 30, 10, 20, 40 };
	struct merge *m = merge__new(15, 1000);
	struct collected c = { 0 };
	unsigned int i;

	ASSERT_NE(NULL, m);
	EXPECT_EQ(NULL, merge__lowest_ref(m));
	for (i = 0; i < 4; i++) {
		size_t n = synth_lost(buf[i], times[i], 1);

		/* CPU 0 gets 30 then 10 (the heap), CPU 1 20 and 40. */
		ASSERT_EQ(0, merge__push_ref(m, times[i], i / 2, buf[i], n));
	}
	EXPECT_EQ((const void *)buf[0], merge__lowest_ref(m));
	/* Newest 40: 10 and 20 leave; 30 (buf[0]) and 40 stay. */
	ASSERT_EQ(0, merge__flush(m, 0, collect, &c));
	ASSERT_EQ(2, c.n);
	EXPECT_EQ(10, c.times[0]);
	EXPECT_EQ(20, c.times[1]);
	EXPECT_EQ((const void *)buf[0], merge__lowest_ref(m));
	ASSERT_EQ(0, merge__flush(m, 1, collect, &c));
	ASSERT_EQ(4, c.n);
	EXPECT_EQ(30, c.times[2]);
	EXPECT_EQ(40, c.times[3]);
	EXPECT_EQ(NULL, merge__lowest_ref(m));
	merge__free(m);
}

TEST_HARNESS_MAIN
