/* proc_tree.h - the processes below this one, from /proc (Linux): what a
 * launcher must end when a job will not end itself. Open MPI puts each
 * rank in a process group of its own, so mpirun's group does not reach
 * them; a launcher that is a child subreaper (proc_tree_adopt) also keeps
 * the ranks that outlive mpirun as its own. Limits: local processes only
 * (a rank on another host is its own host's mpirun daemon's to end). */
#ifndef GS_PROC_TREE_H
#define GS_PROC_TREE_H

#include <sys/types.h>

/* Makes orphaned descendants this process's children (PR_SET_CHILD_SUBREAPER). */
void proc_tree_adopt(void);
/* Sends sig to every descendant of this process; returns how many. */
int proc_tree_signal(int sig);
/* Reaps every child that has ended (never blocks). */
void proc_tree_reap(void);

#endif
