/* script_parse.c: a test file's logical lines (script_lines.c) into a
 * struct script: the header (script_parse_head.c), then the commands in
 * imaptest's three forms grouped into steps (script_parse_step.c, with
 * the untagged lines: script_parse_untagged.c), every pattern checked
 * at load, and script_free.  See script.h for the format. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "script/script_parse_int.h"
#include "script/script_pat.h"
#include "util/xmalloc.h"

/* Every reply pattern compiles and every command's and prefix's
 * variables are well-formed: a malformed file fails at load time, not
 * halfway through a run. */
static int
check_text(struct pstate *p, const char *text, unsigned line)
{
	struct spat_part *parts;
	bool cs;
	char err[160];
	int n = spat_parts(text, strlen(text), &parts, &cs, err, sizeof(err));

	if (n < 0)
		return sparse_fail(p, line, "%s", err);
	spat_parts_free(parts, (unsigned)n);
	return 0;
}

static int
check_patterns(struct pstate *p)
{
	char err[200];

	for (unsigned i = 0; i < p->s->n_steps; i++) {
		const struct script_step *st = &p->s->steps[i];
		for (unsigned k = 0; k < st->n_untagged; k++) {
			const struct script_line *l = &st->untagged[k];
			struct spat *pat = spat_compile(l->text, l->len, err,
							sizeof(err));
			if (pat == NULL)
				return sparse_fail(p, l->line, "%s", err);
			spat_free(pat);
		}
		for (unsigned k = 0; k < st->n_cmds; k++) {
			const struct script_cmd *c = &st->cmds[k];
			if (check_text(p, c->text, c->line) < 0 ||
			    (c->prefix && check_text(p, c->prefix, c->result_line) < 0))
				return -1;
		}
		for (unsigned k = 0; k < st->n_outputs; k++)
			if (check_text(p, st->outputs[k].text, st->outputs[k].line) < 0)
				return -1;
	}
	return 0;
}

struct script *
script_parse(const char *path, const char *text, size_t len, char *err,
	     size_t errlen)
{
	struct script *s = xcalloc(1, sizeof(*s));
	struct slines ls;
	struct pstate p = { .s = s, .ls = &ls, .err = err, .errlen = errlen };
	unsigned i = 0;
	const char *slash = strrchr(path, '/');

	s->path = xstrdup(path);
	s->name = xstrdup(slash ? slash + 1 : path);
	s->connections = 1;
	s->messages = -1;
	s->state = SCRIPT_ST_SELECTED;
	s->ignore_extra_untagged = true;
	if (slines_read(&ls, path, text, len, err, errlen) < 0) {
		script_free(s);
		return NULL;
	}
	while (i < ls.n && ls.v[i].text == NULL)
		i++;
	if (sparse_header(&p, &i) < 0)
		goto fail;
	for (; i < ls.n; i++)
		if (ls.v[i].text != NULL && sparse_body_line(&p, i) < 0)
			goto fail;
	if (p.open > 0) {
		for (unsigned k = 0; k < p.cur->n_cmds; k++)
			if (p.cur->cmds[k].result_line == 0) {
				sparse_fail(&p, p.cur->cmds[k].line, "this "
					    "command has no result line (OK, "
					    "NO, BAD or \"\")%s", "");
				goto fail;
			}
	}
	if (check_patterns(&p) < 0)
		goto fail;
	sparse_rkeys_free(&p);
	slines_free(&ls);
	return s;
fail:
	sparse_rkeys_free(&p);
	slines_free(&ls);
	script_free(s);
	return NULL;
}

bool
script_user_is_user2(const char *v)
{
	return strcmp(v, "$user2") == 0 || strcmp(v, "${user2}") == 0;
}

bool
script_needs_user2(const struct script *s)
{
	for (unsigned i = 0; i < s->connections; i++)
		if (s->users[i] != NULL && script_user_is_user2(s->users[i]))
			return true;
	return false;
}

/* The inverse of script_parse (and of script_load's mbox_path). */
void
script_free(struct script *s)
{
	if (s == NULL)
		return;
	for (unsigned i = 0; i < s->n_steps; i++) {
		struct script_step *st = &s->steps[i];
		for (unsigned k = 0; k < st->n_cmds; k++) {
			free(st->cmds[k].tag);
			free(st->cmds[k].text);
			free(st->cmds[k].prefix);
		}
		for (unsigned k = 0; k < st->n_untagged; k++)
			free(st->untagged[k].text);
		for (unsigned k = 0; k < st->n_outputs; k++)
			free(st->outputs[k].text);
		free(st->outputs);
		free(st->cmds);
		free(st->untagged);
	}
	for (unsigned i = 0; i < s->n_caps; i++)
		free(s->caps[i]);
	for (unsigned i = 0; i < SCRIPT_MAX_CONNS; i++)
		free(s->users[i]);
	for (unsigned i = 0; i < s->n_idates; i++)
		free(s->idates[i]);
	free(s->idates);
	free(s->caps);
	free(s->steps);
	free(s->path);
	free(s->name);
	free(s->mbox_path);
	free(s);
}

bool
script_step_says_bye(const struct script_step *st)
{
	for (unsigned i = 0; i < st->n_cmds; i++)
		if (strcasecmp(st->cmds[i].text, "logout") == 0)
			return true;
	for (unsigned i = 0; i < st->n_untagged; i++)
		if (st->untagged[i].exist == SCRIPT_X_MUST &&
		    strncasecmp(st->untagged[i].text, "bye", 3) == 0)
			return true;
	return false;
}

unsigned
script_imaptest_groups(const struct script *s)
{
	for (unsigned i = 0; i < s->n_steps; i++)
		if (script_step_says_bye(&s->steps[i]))
			return s->n_steps;
	return s->n_steps + 1;
}
