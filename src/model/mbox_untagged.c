/* mbox_untagged.c: the dispatch of one untagged response to the view's
 * handler for it (mbox_view_untagged, see mbox_model.h).
 *
 * Apart from mbox_view.c: the handlers of FETCH (mbox_fetch.c), FLAGS
 * and response codes (mbox_codes.c) and VANISHED (mbox_vanished.c) call
 * down into mbox_view.c, so the dispatcher above them lives in a file of
 * its own; in mbox_view.c it closed a file circle.  It needs nothing of
 * mbox_private.h: each handler is in mbox_model.h. */
#include "model/mbox_model.h"

unsigned
mbox_view_untagged(struct mbox_view *v, const struct imap_resp *r)
{
	if (r->kind != IMAP_UNTAGGED)
		return 0;
	enum imap_kw kw = imap_resp_kw(r);
	if (r->has_num) {
		switch (kw) {
		case IMAP_KW_FETCH:
			return mbox_view_on_fetch(v, r->num, r->text,
						  r->text_len);
		case IMAP_KW_EXISTS:
			return mbox_view_on_exists(v, r->num);
		case IMAP_KW_RECENT:
			return mbox_view_on_recent(v, r->num);
		case IMAP_KW_EXPUNGE:
			return mbox_view_on_expunge(v, r->num);
		default:
			return 0;
		}
	}
	if (kw == IMAP_KW_FLAGS)
		return mbox_view_on_flags(v, r->text, r->text_len);
	if (kw == IMAP_KW_VANISHED)
		return mbox_view_on_vanished(v, r->text, r->text_len);
	if (r->cond != IMAP_COND_NONE)
		return mbox_view_on_resp_text(v, r->text, r->text_len);
	return 0;
}
