/* merge.h: the `imapstress merge` subcommand (merge.c). */
#ifndef IMAPSTRESS_MERGE_H
#define IMAPSTRESS_MERGE_H

/* argv[0] is "merge".  Returns the exit status: the merged run's (0, 1,
 * 3, as a single run), or 2 when the files are refused. */
int merge_main(int argc, char **argv);

#endif
