#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# safety.sh: sourced by throttle-vs-perf (executable only so that the
# test-bed runner, which ships the executables, ships it).  What makes it
# safe to run on a real machine: the checks that refuse a run that cannot
# be safe or meaningful (preflight), and the save and restore of every
# value it touches (save_limits, restore; the traps are set by the caller).
# Uses the caller's prog, event, on_testpmu, force, PERF, KPARAMS,
# KPROF_DEV, kprof_ok, SYS, NMI_COST and SCHED_FEATURES.

# other_perf_users: "PID (COMM)" of each process other than this one
# holding a perf_event file (anon inode [perf_event]) or /dev/kprof.
# A counting perf stat is as much in the way as a sampling perf record:
# both take PMU counters, and a sampling one shares the limits and the
# cost controller with ours.
other_perf_users() {
	local fd pid what
	for fd in /proc/[0-9]*/fd/*; do
		pid=${fd#/proc/}; pid=${pid%%/*}
		[ "$pid" = $$ ] && continue
		what=$(readlink "$fd" 2>/dev/null) || continue
		case $what in
		"anon_inode:[perf_event]"|"$KPROF_DEV"|/dev/kprof) ;;
		*) continue ;;
		esac
		echo "$pid ($(cat /proc/"$pid"/comm 2>/dev/null)) ${what#anon_inode:}"
	done | sort -un
}

# event_counts: does a PMU count $event here?  perf stat prints
# "<not supported>" (no PMU, as on a VM without a virtual PMU) where perf
# record would fall back to cpu-clock: a comparison of something else.
event_counts() {
	local line
	case $event in
	cpu-clock|task-clock) return 0 ;;
	*/*)	[ -d "/sys/bus/event_source/devices/${event%%/*}" ] || {
			why="no PMU '${event%%/*}' in /sys/bus/event_source/devices"
			return 1
		} ;;
	esac
	line=$("$PERF" stat -x, -e "$event" -a -- sleep 0.1 2>&1 >/dev/null | grep -v '^#' | tail -n 1)
	case ${line%%,*} in
	''|*[!0-9.]*)
		why="perf stat -e $event reads '${line:-nothing}'"
		return 1 ;;
	esac
}

preflight() {
	local v users why=
	v=$(cat "$SYS/panic_on_warn" 2>/dev/null || echo 0)
	if [ "$v" != 0 ] && [ "$force" = 0 ]; then
		refuse "kernel.panic_on_warn=$v: a WARN in the kernel's or kprof's throttling paths during a run would panic this machine; set it to 0, or give --force to accept that"
	fi
	event_counts || refuse "no PMU counts $event on this machine ($why); perf record would fall back to cpu-clock, so the runs would not compare what was asked: use --event cpu-clock, or a machine (or VM) with a PMU"
	users=$(other_perf_users)
	if [ -n "$users" ] && [ "$force" = 0 ]; then
		refuse "other processes hold perf events or kprof: $(echo "$users" | tr '\n' ';' | sed 's/;$//; s/;/; /g'); their counters take PMU counters and share the limits and the cost controller with the runs, so the comparison would not be of perf and kprof alone: stop them, or give --force"
	fi
	[ -z "$users" ] || echo "$prog: --force: running beside $(echo "$users" | tr '\n' ',' | sed 's/,$//; s/,/, /g')" >&2
}

# save_limits: what restore puts back.  Set before anything is written.
save_limits() {
	old_rate=$(cat $SYS/perf_event_max_sample_rate) &&
		old_pct=$(cat $SYS/perf_cpu_time_max_percent) || die "cannot read the perf sysctls"
	old_cost=
	[ "$on_testpmu" = 0 ] || old_cost=$(cat $NMI_COST) || die "cannot read $NMI_COST"
	old_knobs=
	[ "$kprof_ok" = 0 ] || old_knobs=$(kprof_knobs) || die "cannot read kprof's knobs in $KPARAMS"
	old_hrtick=$(hrtick_state)
	old_aslr=$(cat $SYS/randomize_va_space) || die "cannot read kernel.randomize_va_space"
	saved=1
}

# hrtick_state: the scheduler's HRTICK feature, "on" or "off", or nothing
# where the kernel has no $SCHED_FEATURES (no debugfs, no
# CONFIG_SCHED_DEBUG) or no such feature.
hrtick_state() {
	[ -r "$SCHED_FEATURES" ] || return 0
	tr ' ' '\n' <"$SCHED_FEATURES" | awk '$0 == "HRTICK" { print "on" } $0 == "NO_HRTICK" { print "off" }'
}

# set_hrtick on|off: with HRTICK the scheduler ends a task's slice with an
# hrtimer at its length (base_slice_ns), within the tick; without it, at
# the tick.  Nothing to do where the feature cannot be read.
set_hrtick() {
	[ -n "$old_hrtick" ] && [ "$(hrtick_state)" != "$1" ] || return 0
	if [ "$1" = on ]; then echo HRTICK; else echo NO_HRTICK; fi >"$SCHED_FEATURES"
}

# set_aslr N: kernel.randomize_va_space, written only when it differs.
set_aslr() {
	[ "$(cat $SYS/randomize_va_space)" = "$1" ] || echo "$1" >$SYS/randomize_va_space
}

# kprof_knobs: kprof's knobs in force, "SEMANTICS PCT RATE", from the
# files kprofcat's --throttle-semantics, --cpu-time-max-percent and
# --max-sample-rate write.
kprof_knobs() {
	local sem pct rate
	sem=$(cat $KPARAMS/throttle_semantics) && pct=$(cat $KPARAMS/cpu_time_max_percent) &&
		rate=$(cat $KPARAMS/max_sample_rate) && echo "$sem $pct $rate"
}

# set_kprof SEMANTICS PCT RATE: as set_kernel, kprof's knobs having the
# sysctls' rule.
set_kprof() {
	echo "$1" >$KPARAMS/throttle_semantics &&
		echo 25 >$KPARAMS/cpu_time_max_percent &&
		echo "$3" >$KPARAMS/max_sample_rate &&
		echo "$2" >$KPARAMS/cpu_time_max_percent
}

# set_kernel RATE PCT: the rate is refused while the percent is 0 or 100
# (perf_proc_update_handler()), so a writable percent goes first.
set_kernel() {
	echo 25 >$SYS/perf_cpu_time_max_percent || return 1
	echo "$1" >$SYS/perf_event_max_sample_rate || return 1
	echo "$2" >$SYS/perf_cpu_time_max_percent
}

set_nmi_cost() {	# NS: the stand-in's extra cost per NMI
	[ "$on_testpmu" = 0 ] || echo "$1" >$NMI_COST
}

# restore: every value save_limits read, then one line saying what is in
# force (the kernel's controller may have lowered the rate during a run:
# the saved value is put back, not the lowered one).
restore() {
	local now
	[ "${saved:-0}" = 1 ] || return 0
	saved=0
	[ -z "$old_cost" ] || set_nmi_cost "$old_cost" ||
		echo "$prog: could not restore $NMI_COST=$old_cost" >&2
	set_kernel "$old_rate" "$old_pct" ||
		echo "$prog: could not restore kernel.perf_event_max_sample_rate=$old_rate perf_cpu_time_max_percent=$old_pct" >&2
	set_hrtick "$old_hrtick" ||
		echo "$prog: could not restore the scheduler's HRTICK feature ($old_hrtick) in $SCHED_FEATURES" >&2
	set_aslr "$old_aslr" ||
		echo "$prog: could not restore kernel.randomize_va_space=$old_aslr" >&2
	if [ -n "$old_knobs" ]; then
		# shellcheck disable=SC2086 # the saved values split on purpose
		set_kprof $old_knobs 2>/dev/null ||
			echo "$prog: could not restore kprof's knobs ($old_knobs) in $KPARAMS" >&2
	fi
	now="kernel.perf_event_max_sample_rate=$(cat $SYS/perf_event_max_sample_rate) kernel.perf_cpu_time_max_percent=$(cat $SYS/perf_cpu_time_max_percent)"
	[ -z "$old_cost" ] || now="$now nmi_cost_ns=$(cat $NMI_COST)"
	[ -z "$old_knobs" ] || now="$now kprof: $(kprof_knobs)"
	[ -z "$old_hrtick" ] || now="$now sched HRTICK $(hrtick_state)"
	now="$now kernel.randomize_va_space=$(cat $SYS/randomize_va_space)"
	echo "$prog: restored $now" >&2
}
