/* report_server.c: the server's own counters (--server-pid) and the run's
 * network Kbps, as the Exchange LoadSim report tabled them: processor %,
 * memory, disk, network Kbps total and per user.  Shown only when
 * --server-pid was given, so imaptest's layout is untouched otherwise;
 * network Kbps comes from our own wire byte counters (in + out). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/report_int.h"

/* Kilobits per second, 1000 bits each (the seed's unit), both ways. */
static double
net_kbps(const struct stats_snap *s, double secs)
{
	return report_div((double)(s->bytes_sent + s->bytes_received) * 8.0 /
			  1000.0, secs);
}

static double
fin(double v)
{
	return isfinite(v) ? v : 0.0;
}

bool
report_server_shown(const struct config *cfg)
{
	return cfg->n_server_pids > 0;
}

/* The tick's length: a second, or the last, partial one. */
static double
tick_secs(const struct report_run *run)
{
	return run->partial_s > 0 ? run->partial_s : 1.0;
}

void
report_server_text_tick(struct report *r, const struct report_run *run,
			const struct stats_snap *win)
{
	if (r->out == NULL || !report_server_shown(r->cfg) || !run->srv)
		return;
	double secs = tick_secs(run), k = net_kbps(win, secs);
	fprintf(r->out, "server: cpu %.1f%% %s %.1f MiB procs %u",
		fin(run->srv_cpu_pct), run->srv_pss ? "pss" : "rss",
		(double)run->srv_mem_kb / 1024.0, run->srv_procs);
	if (run->srv_io)
		fprintf(r->out, " disk read %.1f KiB/s write %.1f KiB/s",
			(double)run->srv_read_bytes / 1024.0 / secs,
			(double)run->srv_write_bytes / 1024.0 / secs);
	fprintf(r->out, "; net %.1f Kbps, %.2f Kbps/user\n", k,
		report_div(k, run->net_users));
}

/* The seed's table, for the measured interval. */
void
report_server_text_final(const struct report_run *run,
			 const struct stats_snap *tot, FILE *o)
{
	double k = net_kbps(tot, run->measured_s);

	fputs("\nserver counters (--server-pid", o);
	if (run->srv_secs > 0)
		fprintf(o, ", %.0f s sampled", run->srv_secs);
	fputs("):\n", o);
	if (run->srv_secs > 0) {
		fprintf(o, "  processor:     %.1f%% mean, %.1f%% peak "
			"(100%% = one core), up to %u processes\n",
			fin(run->srv_cpu_pct), fin(run->srv_cpu_max),
			run->srv_procs);
		if (run->srv_cpu_capped > 0)
			fprintf(o, "                 %u s capped at 100%% x the "
				"CPUs (the rest moved to the next second)\n",
				run->srv_cpu_capped);
		fprintf(o, "  memory:        %.1f MiB peak (%s)\n",
			(double)run->srv_mem_kb / 1024.0,
			run->srv_pss ? "PSS" : "RSS, shared pages counted per "
			"process");
		if (run->srv_io)
			fprintf(o, "  disk:          read %" PRIu64 " bytes "
				"(%.1f KiB/s), write %" PRIu64 " bytes "
				"(%.1f KiB/s)\n", run->srv_read_bytes,
				(double)run->srv_read_bytes / 1024.0 /
				run->srv_secs, run->srv_write_bytes,
				(double)run->srv_write_bytes / 1024.0 /
				run->srv_secs);
		else
			fputs("  disk:          not readable (/proc/PID/io needs "
			      "the server's uid)\n", o);
	} else {
		fputs("  processor, memory, disk: not sampled (the server "
		      "was gone)\n", o);
	}
	fprintf(o, "  network:       %.1f Kbps (in + out)\n", k);
	fprintf(o, "  per user:      %.3f Kbps (%.1f users: connections past "
		"the greeting, the mean)\n",
		report_div(k, run->net_users), fin(run->net_users));
}

static void
json_double(FILE *f, const char *key, double v)
{
	fprintf(f, "\"%s\":%.6g", key, fin(v));
}

void
report_server_json(FILE *f, const struct report_run *run,
		   const struct stats_snap *s, double secs, bool final)
{
	double k = net_kbps(s, secs);

	fputs(",\"server\":{", f);
	fprintf(f, "\"sampled\":%s", run->srv ? "true" : "false");
	if (run->srv) {
		fputc(',', f);
		json_double(f, "cpu_pct", run->srv_cpu_pct);
		if (final) {
			fputc(',', f);
			json_double(f, "cpu_pct_max", run->srv_cpu_max);
			fprintf(f, ",\"cpu_capped_s\":%u", run->srv_cpu_capped);
			fputc(',', f);
			json_double(f, "sampled_s", run->srv_secs);
		}
		fprintf(f, ",\"mem_kb\":%" PRIu64 ",\"mem_kind\":\"%s\","
			"\"procs\":%u", run->srv_mem_kb,
			run->srv_pss ? "pss" : "rss", run->srv_procs);
		if (run->srv_io)
			fprintf(f, ",\"disk_read_bytes\":%" PRIu64
				",\"disk_write_bytes\":%" PRIu64,
				run->srv_read_bytes, run->srv_write_bytes);
	}
	fputc(',', f);
	json_double(f, "net_kbps", k);
	fputc(',', f);
	json_double(f, "net_kbps_per_user", report_div(k, run->net_users));
	fputc(',', f);
	json_double(f, "users", run->net_users);
	fputc('}', f);
}

void
report_server_csv_header(FILE *f)
{
	fputs(",srv_cpu_pct,srv_mem_kb,srv_disk_read_bytes,"
	      "srv_disk_write_bytes,net_kbps,net_kbps_per_user", f);
}

/* Empty cells once the server is gone (or for disk when io is not
 * readable): absent, not zero. */
void
report_server_csv_row(FILE *f, const struct report_run *run,
		      const struct stats_snap *win)
{
	double k = net_kbps(win, tick_secs(run));

	if (run->srv)
		fprintf(f, ",%.2f,%" PRIu64, fin(run->srv_cpu_pct),
			run->srv_mem_kb);
	else
		fputs(",,", f);
	if (run->srv && run->srv_io)
		fprintf(f, ",%" PRIu64 ",%" PRIu64, run->srv_read_bytes,
			run->srv_write_bytes);
	else
		fputs(",,", f);
	fprintf(f, ",%.2f,%.3f", k, report_div(k, run->net_users));
}

void
report_run_take_server(struct report_run *dst, const struct report_run *src)
{
	dst->net_users += src->net_users;
	if (dst->srv || !src->srv)
		return;
	dst->srv = true;
	dst->srv_io = src->srv_io;
	dst->srv_pss = src->srv_pss;
	dst->srv_procs = src->srv_procs;
	dst->srv_cpu_pct = src->srv_cpu_pct;
	dst->srv_cpu_max = src->srv_cpu_max;
	dst->srv_cpu_capped = src->srv_cpu_capped;
	dst->srv_mem_kb = src->srv_mem_kb;
	dst->srv_read_bytes = src->srv_read_bytes;
	dst->srv_write_bytes = src->srv_write_bytes;
	dst->srv_secs = src->srv_secs;
}
