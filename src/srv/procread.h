/* procread.h: the /proc files the server watch reads (srv/procstat.c),
 * parsed; every reader takes the directory /proc is at, so the unit tests
 * can feed a scripted tree of their own. */
#ifndef IMAPSTRESS_SRV_PROCREAD_H
#define IMAPSTRESS_SRV_PROCREAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A /proc/N/stat line: ppid, the four CPU fields (clock ticks), the start
 * time (field 22, clock ticks since boot) and rss (pages). */
struct srv_stat {
	pid_t ppid;
	uint64_t utime, stime, cutime, cstime, start, rss_pages;
};
/* 0, or -1 when the line is malformed. */
int srv_parse_stat(const char *line, struct srv_stat *out);
/* /proc/N/io text: read_bytes and write_bytes; -1 when either is missing. */
int srv_parse_io(const char *text, uint64_t *rd, uint64_t *wr);
/* smaps_rollup text: the Pss: line in kB; -1 when missing. */
int srv_parse_pss(const char *text, uint64_t *kb);
/* /proc/uptime text: the seconds since boot in clock ticks of tck per
 * second (the clock of the start field); -1 when malformed. */
int srv_parse_uptime(const char *text, long tck, uint64_t *ticks);

/* ROOT/FILE, or ROOT/PID/FILE when pid > 0, into buf (NUL-terminated):
 * 0, or -1 when it cannot be read or is empty. */
int srv_read_proc(const char *root, pid_t pid, const char *file, char *buf,
		  size_t len);

#endif
