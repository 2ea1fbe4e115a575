/* learn.h: the `imapstress learn` subcommand: a stress mix, a profile
 * and a summary learned from recorded IMAP sessions (Dovecot's rawlog,
 * imapstress's own --rawlog).  Usage: learn [--anonymize] [-o PREFIX]
 * FILE|DIR... */
#ifndef IMAPSTRESS_LEARN_H
#define IMAPSTRESS_LEARN_H

/* argv[0] is "learn".  Returns the exit status: 0 (learned), 1 (nothing
 * learned, or an output not written), 2 (bad usage). */
int learn_main(int argc, char **argv);

#endif
