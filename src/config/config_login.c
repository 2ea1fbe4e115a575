/* config_login.c: who logs in: user=, user2=, master= (user names),
 * pass=, --password-file (the password), and the defaults taken from
 * $USER and $IMAPSTRESS_PASSWORD.
 *
 * Each name and password goes into LOGIN or AUTHENTICATE, the rawlog and
 * the server's logs, so a control character (below 0x20, or DEL) is
 * refused at start: a CR or LF would end the command line early, an ESC
 * would reach whoever reads those logs.  Bytes of 0x80 and up stay
 * allowed (UTF-8 names; a literal carries them).  A user name is shown
 * escaped in the message; a password is not shown at all, only where the
 * bad octet is.  userfile.c holds the file's lines to the same rule. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_int.h"
#include "util/escape.h"
#include "util/infile.h"
#include "config/user_template.h"
#include "util/xmalloc.h"

/* 0, or -1 with the message when name s (the value as typed) has a
 * control character. */
static int
check_name(struct pctx *c, const char *s)
{
	size_t at = escape_find_ctl(s);
	if (s[at] == '\0')
		return 0;
	return config_fail(c, "control character \\x%02x in a user name",
			   (unsigned char)s[at]);
}

/* The same for password s; `where` says what s is ("the password"), and
 * the option's value is left out when it is s itself. */
static int
check_secret(struct pctx *c, const char *s, const char *where, bool hide)
{
	size_t at = escape_find_ctl(s);
	if (s[at] == '\0')
		return 0;
	struct pctx shown = *c;
	if (hide)
		shown.val = NULL;
	return config_fail(&shown, "control character \\x%02x at octet %zu of "
			   "%s (not shown)", (unsigned char)s[at], at + 1, where);
}

/* imaptest fills up to two %d/%i (printf-style width and 0 flag) with the
 * user and domain numbers; anything else is refused here. */
int
config_h_user(struct pctx *c, const struct opt *o)
{
	char why[128];

	if (check_name(c, c->val) < 0)
		return -1;
	if (user_template_check(c->val, why, sizeof(why)) < 0)
		return config_fail(c, "%s", why);
	config_set_str(&c->cfg->user_template, c->val);
	return 0;
}

/* A plain name option: checked, then stored in *dst. */
static int
set_name(struct pctx *c, char **dst)
{
	if (check_name(c, c->val) < 0)
		return -1;
	config_set_str(dst, c->val);
	return 0;
}

int
config_h_user2(struct pctx *c, const struct opt *o)
{
	return set_name(c, &c->cfg->user2);
}

int
config_h_master(struct pctx *c, const struct opt *o)
{
	if (set_name(c, &c->cfg->master) < 0)
		return -1;
	c->cfg->states[OP_AUTHENTICATE].prob = 100;
	return 0;
}

int
config_h_pass(struct pctx *c, const struct opt *o)
{
	if (check_secret(c, c->val, "the password", true) < 0)
		return -1;
	config_set_str(&c->cfg->pass, c->val);
	return 0;
}

/* The password is the first line; the file is read whole, so it must be
 * a regular file and small (infile.h): a FIFO or /dev/zero is refused
 * instead of hanging the start. */
#define PASSWORD_FILE_MAX (64u << 10)

int
config_h_password_file(struct pctx *c, const struct opt *o)
{
	char why[256];
	size_t len;
	char *text = infile_read(c->val, PASSWORD_FILE_MAX, &len, why,
				 sizeof(why));

	if (text == NULL)
		return config_fail(c, "%s", why);
	if (len == 0) {
		free(text);
		return config_fail(c, "the file is empty");
	}
	size_t n = strcspn(text, "\n");
	while (n > 0 && text[n - 1] == '\r')
		n--;
	text[n] = '\0';
	int r = n == 0 ? config_fail(c, "the first line is empty")
	    : check_secret(c, text, "the first line, the password", false);
	if (r == 0) {
		free(c->cfg->pass);
		c->cfg->pass = xstrdup(text);
		config_set_str(&c->cfg->password_file, c->val);
	}
	/* The copy on the heap is all that stays of the file. */
	explicit_bzero(text, len);
	free(text);
	return r;
}

/* The defaults from the environment, which no option handler saw: with
 * user= or pass= given, these hold what the handlers already checked. */
int
config_check_login_env(const struct config *cfg, char *err, size_t errlen)
{
	const char *u = cfg->user_template, *p = cfg->pass;
	size_t at = escape_find_ctl(u);

	if (u[at] != '\0') {
		snprintf(err, errlen, "user=%s (from $USER): control character "
			 "\\x%02x in a user name", u, (unsigned char)u[at]);
		return -1;
	}
	at = escape_find_ctl(p);
	if (p[at] != '\0') {
		snprintf(err, errlen, "pass= (from $IMAPSTRESS_PASSWORD): control "
			 "character \\x%02x at octet %zu of the password (not "
			 "shown)", (unsigned char)p[at], at + 1);
		return -1;
	}
	return 0;
}
