/* hr_page.c: the page around the charts: one HTML file with its style
 * inline, no script, no font, no image, no link to anywhere, so that it
 * opens from a mail attachment with no network and prints on paper. */
#include <math.h>

#include "htmlreport/hr_int.h"
#include "version.h"

/* System fonts only; black on white; charts never split across pages. */
static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;color:#000;background:#fff;"
	"max-width:800px;margin:1em auto;padding:0 1em}"
	"h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.6em;"
	"border-bottom:1px solid #999}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{padding:1px 8px;border-bottom:1px solid #ddd;text-align:left;"
	"vertical-align:top}"
	"table.num td+td,table.num th+th{text-align:right;"
	"font-variant-numeric:tabular-nums}"
	"code,.cmd{font-family:ui-monospace,monospace;font-size:.9em;"
	"overflow-wrap:anywhere}"
	"figure{margin:1em 0;break-inside:avoid}"
	"figure.small{display:inline-block;width:49%;margin:.5em 0;"
	"vertical-align:top}"
	"figcaption{font-weight:600;margin-bottom:.2em}"
	"svg.plot{max-width:100%;height:auto;font-size:11px}"
	".grid line{stroke:#ddd;stroke-width:1}"
	".warm{fill:#eee}.wl{fill:#555}"
	".frame{fill:none;stroke:#555}"
	".line{fill:none;stroke-width:1.6}"
	".yt{text-anchor:end}.xt,.xl,.yl{text-anchor:middle}"
	".rl{text-anchor:end}.ref{stroke:#000;stroke-dasharray:4 3}"
	".ci{stroke:#000;stroke-width:1.4;fill:none}"
	".bar{stroke-width:1.4;fill:none}.dots{stroke:none}"
	".limit{stroke:#000;stroke-width:1.4;stroke-dasharray:7 4}"
	".ll{text-anchor:end;font-weight:600}.band{fill:#e3e3e3}"
	".answer{font-size:1.15em;border-left:4px solid #000;"
	"padding:.2em .6em}"
	".bad .vd{font-weight:700}"
	"ul.legend{list-style:none;padding:0;margin:0;display:flex;"
	"flex-wrap:wrap;gap:2px 14px;font-size:12px}"
	"ul.legend svg{vertical-align:middle;margin-right:3px}"
	".empty,.note{color:#444;font-style:italic}"
	"nav a{margin-right:.8em}"
	".wide{overflow-x:auto;font-size:12px}"
	".cols{display:flex;flex-wrap:wrap;gap:0 1.5em;align-items:flex-start}"
	"@media print{body{max-width:none}nav{display:none}"
	".wide{overflow:visible;font-size:9px}"
	"h2{break-after:avoid}}";

void
hr_page_open(struct hbuf *b, const char *title)
{
	hb_put(b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
	       "<meta charset=\"utf-8\">"
	       /* Belt and braces: even a link slipped into the page
		* by mistake could not fetch anything. */
	       "<meta http-equiv=\"Content-Security-Policy\" "
	       "content=\"default-src 'none'; style-src 'unsafe-inline'; "
	       "img-src data:\">"
	       "<meta name=\"viewport\" content=\"width=device-width\">"
	       "<title>");
	hb_esc(b, title);
	hb_printf(b, "</title><style>%s</style></head>\n<body>"
		  "<h1>", style);
	hb_esc(b, title);
	hb_put(b, "</h1>\n");
}

void
hr_page_close(struct hbuf *b)
{
	hb_put(b, "<p class=\"note\">Drawn by imapstress " IMAPSTRESS_VERSION
	       " (imapstress report). Every chart's numbers are in its "
	       "data-x and data-y attributes, in the input's units.</p>\n"
	       "</body></html>\n");
}

void
hr_section(struct hbuf *b, const char *id, const char *title)
{
	hb_put(b, "<h2 id=\"");
	hb_esc(b, id);
	hb_put(b, "\">");
	hb_esc(b, title);
	hb_put(b, "</h2>\n");
}

void
hr_kv(struct hbuf *b, const char *key, const char *value)
{
	hb_put(b, "<tr><th>");
	hb_esc(b, key);
	hb_put(b, "</th><td data-key=\"");
	hb_esc(b, key);
	hb_put(b, "\">");
	hb_esc(b, value);
	hb_put(b, "</td></tr>\n");
}

void
hr_kv_num(struct hbuf *b, const char *key, double v, const char *unit)
{
	hb_put(b, "<tr><th>");
	hb_esc(b, key);
	hb_put(b, "</th><td data-key=\"");
	hb_esc(b, key);
	hb_put(b, "\" data-v=\"");
	hb_num(b, v);
	hb_put(b, "\">");
	hb_human(b, v);
	if (unit != NULL && *unit != '\0') {
		hb_put(b, " ");
		hb_esc(b, unit);
	}
	hb_put(b, "</td></tr>\n");
}

void
hr_table_open(struct hbuf *b, const char *id, const char *heads)
{
	hb_put(b, "<table class=\"num\" data-table=\"");
	hb_esc(b, id);
	hb_put(b, "\"><tr><th>");
	for (const char *p = heads; *p != '\0'; p++) {
		if (*p == '|')
			hb_put(b, "</th><th>");
		else
			hb_escn(b, p, 1);
	}
	hb_put(b, "</th></tr>\n");
}

void
hr_num_cell(struct hbuf *b, const char *key, double v, double shown)
{
	hb_put(b, "<td");
	if (key != NULL) {
		hb_put(b, " data-key=\"");
		hb_esc(b, key);
		hb_put(b, "\"");
	}
	hb_put(b, " data-v=\"");
	hb_num(b, v);
	hb_put(b, "\">");
	hb_human(b, shown);
	hb_put(b, "</td>");
}
