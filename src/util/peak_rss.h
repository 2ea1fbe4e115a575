/* peak_rss.h: the process's own peak resident memory, for the summary's
 * "peak RSS" and peak_rss_kb. */
#ifndef IMAPSTRESS_PEAK_RSS_H
#define IMAPSTRESS_PEAK_RSS_H

#include <stdbool.h>
#include <stdint.h>

/* KiB.  The kernel's VmHWM from /proc/self/status where it can be read:
 * it counts this process image only.  getrusage's ru_maxrss, the
 * fallback, keeps the high-water mark of the process that forked us
 * across exec (a Python script's 15 MB would read as ours).  *from_hwm
 * (may be NULL) says which one it is. */
uint64_t peak_rss_kb(bool *from_hwm);

/* The VmHWM figure of a /proc/PID/status text, or 0 if it has none. */
uint64_t peak_rss_parse_status(const char *text);

#endif
